import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Foundation
import Redux
import TestSupport
import Testing
import ArchiveSyncModel

/// The Favorites view's search, through the store: actions → middleware →
/// repository (in-memory SQLite with its index) → reducer → state.
@MainActor
@Suite(.timeLimit(.minutes(5)))
struct FavoritesSearchStoreTests {
    let database: ArchiveDatabase
    let store: AppStore

    init() throws {
        database = try ArchiveDatabase.inMemory()
        store = AppStore(environment: ArchiveEnvironment(database: database))
        for (offset, entity) in BundledCatalog.entities.enumerated() {
            try database.favorites.create(StoredArchiveObject(
                id: entity.id, photoUrl: entity.photoUrl, category: entity.category, dishName: entity.dishName,
                shopName: entity.shopName, introduction: entity.introduction,
                storedAt: Date(millisecondsSince1970: 1_700_000_000_000 + Int64(offset))))
        }
    }

    /// What the catalog's own search answers for the same conditions, newest stored first.
    func expected(_ keyword: String, _ category: String = "") -> [Int] {
        BundledCatalog.entities.reversed().filter { $0.matches(keyword: keyword, category: category) }.map(\.id)
    }

    @Test func aSearchListsTheMatchingFavoritesNewestFirstWithTheirCount() async throws {
        for (keyword, category) in [("蕎", ""), ("寿司", ""), ("チーズ", "洋食"), ("CHEESE", ""), ("", "中華"), ("no such dish", "")] {
            store.dispatch(.favorites(.search(FavoritesQuery(keyword: keyword, category: category), after: nil, limit: 200)))
            #expect(store.state.favoritesState.isLoading)
            await store.settle()
            let state = store.state.favoritesState
            #expect(state.favorites.map(\.id) == expected(keyword, category), "\(keyword) in \(category)")
            #expect(state.totalCount == expected(keyword, category).count)
            #expect(state.query == FavoritesQuery(keyword: keyword, category: category))
            #expect(state.errorMessage == nil && !state.isLoading)
        }
        #expect(!expected("蕎").isEmpty && !expected("寿司").isEmpty)
    }

    @Test func nextPagesAndRefreshesKeepTheQuery() async throws {
        let all = expected("の")
        #expect(all.count > 4)
        store.dispatch(.favorites(.search(FavoritesQuery(keyword: "の"), after: nil, limit: 2)))
        await store.settle()
        store.dispatch(.favorites(.requestNextPage(limit: 2)))
        await store.settle()
        #expect(store.state.favoritesState.favorites.map(\.id) == Array(all.prefix(4)))
        store.dispatch(.favorites(.refresh(minimumLimit: 1)))
        await store.settle()
        #expect(store.state.favoritesState.favorites.map(\.id) == Array(all.prefix(4)))
        // Unstoring a shown match removes it and lowers the count.
        store.dispatch(.archive(.deleteArchiveObject(id: all[0])))
        await store.settle()
        #expect(store.state.favoritesState.favorites.map(\.id) == Array(all[1..<4]))
        #expect(store.state.favoritesState.totalCount == all.count - 1)
        // An empty query lists every favorite again.
        store.dispatch(.favorites(.search(FavoritesQuery(), after: nil, limit: 500)))
        await store.settle()
        #expect(store.state.favoritesState.favorites.count == BundledCatalog.entities.count - 1)
    }

    @Test func aPageOfAnEarlierQueryIsDropped() {
        var state = AppState()
        AppReducer.reduce(&state, .favorites(.search(FavoritesQuery(keyword: "寿"), after: nil, limit: 10)))
        AppReducer.reduce(&state, .favorites(.search(FavoritesQuery(keyword: "寿司"), after: nil, limit: 10)))
        let stale = StoredArchivePage(objects: [], nextCursor: nil)
        AppReducer.reduce(&state, .favorites(.pageLoaded(stale, query: FavoritesQuery(keyword: "寿"), appending: false, totalCount: 0)))
        #expect(state.favoritesState.isLoading)
        #expect(!state.favoritesState.hasLoaded)
        AppReducer.reduce(&state, .favorites(.pageLoaded(stale, query: FavoritesQuery(keyword: "寿司"), appending: false, totalCount: nil)))
        #expect(!state.favoritesState.isLoading)
        #expect(state.favoritesState.totalCount == nil)
    }
}
