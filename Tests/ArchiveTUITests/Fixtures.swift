import ArchiveAPI
import ArchiveCore
@testable import ArchiveTUI
import ArchiveStorage
import Foundation
import ArchiveSyncModel

/// States of the app for rendering and key tests, built through the real reducers.
enum Fixtures {
    static let categories = ["和食", "洋食", "中華", "イタリアン", "エスニック", "スイーツ"]

    static func reduce(_ actions: AppAction..., from state: AppState = AppState()) -> AppState {
        var state = state
        for action in actions { AppReducer.reduce(&state, action) }
        return state
    }

    static func entities(keyword: String, category: String) -> [ArchiveSceneEntity] {
        BundledCatalog.entities.filter { $0.matches(keyword: keyword, category: category) }
    }

    /// チーズ in 洋食, with 17 and 33 stored: the original app's scenario.
    static var cheeseWestern: AppState {
        reduce(
            .archive(.requestWithConditions(inputText: "チーズ", selectedCategory: "洋食")),
            .archive(.success(entities: entities(keyword: "チーズ", category: "洋食"), storedIDs: [17, 33])))
    }

    static var everything: AppState {
        reduce(.archive(.requestWithNoConditions), .archive(.success(entities: BundledCatalog.entities, storedIDs: [2, 5])))
    }

    static func view(focus: ViewState.Focus = .results, query: String = "チーズ", cursor: Int = 0) -> ViewState {
        var view = ViewState()
        view.categories = categories
        view.focus = focus
        view.query = query
        view.resultCursor = cursor
        view.chipCursor = 1
        return view
    }

    static func favorites(_ count: Int, total: Int? = nil) -> AppState {
        let objects = (1...count).map { id in
            let entity = BundledCatalog.entities[(id - 1) % BundledCatalog.entities.count]
            return StoredArchiveObject(
                id: id, photoUrl: entity.photoUrl, category: entity.category, dishName: entity.dishName,
                shopName: entity.shopName, introduction: entity.introduction,
                storedAt: Date(millisecondsSince1970: 1_700_000_000_000 - Int64(id)))
        }
        let page = StoredArchivePage(objects: objects, nextCursor: objects.last.map(StoredArchivePageCursor.init(after:)))
        return reduce(.favorites(.pageLoaded(page, query: FavoritesQuery(), appending: false, totalCount: total ?? count)))
    }
}
