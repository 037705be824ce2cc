import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Foundation
import Redux
import TestSupport
import Testing
import ArchiveSyncModel

/// A catalog that is down: every call fails, and is counted.
struct DownArchiveAPI: RequestArchiveRepository {
    let calls = Recorder<String>()

    struct Down: Error, CustomStringConvertible {
        var description: String { "cannot reach http://catalog.invalid/archive_images: connection refused" }
    }

    func getArchiveResponse(keyword: String, category: String) async throws -> [ArchiveSceneEntity] {
        calls.append("search \(keyword)")
        throw Down()
    }

    func getArchiveEntity(id: Int) async throws -> ArchiveSceneEntity {
        calls.append("entity \(id)")
        throw Down()
    }

    func categories() async throws -> [String] {
        calls.append("categories")
        throw Down()
    }
}

/// Offline-first: when the catalog cannot answer, the archive answers from the
/// stored favorites with the same search semantics; the reducer decides.
@MainActor
@Suite(.timeLimit(.minutes(5)))
struct OfflineArchiveTests {
    let database: ArchiveDatabase

    init() async throws {
        database = try ArchiveDatabase.inMemory()
        for (offset, id) in [4, 17, 21, 33, 40].enumerated() {
            var object = try await storedObject(id)
            object.storedAt = Date(millisecondsSince1970: 1_700_000_000_000 + Int64(offset))
            try database.favorites.create(object)
        }
    }

    func makeStore(api: any RequestArchiveRepository) -> AppStore {
        AppStore(environment: ArchiveEnvironment(database: database, api: api))
    }

    /// The catalog's own answer to the same conditions, among the stored IDs, newest stored first.
    func expected(_ keyword: String, _ category: String) -> [Int] {
        let stored: [Int] = [40, 33, 21, 17, 4]
        return stored.filter { id in
            BundledCatalog.entities.first { $0.id == id }?.matches(keyword: keyword, category: category) == true
        }
    }

    @Test func aFailedSearchShowsTheMatchingFavoritesAndSaysWhy() async throws {
        let api = DownArchiveAPI()
        let store = makeStore(api: api)
        for (keyword, category) in [("チーズ", ""), ("チーズ", "洋食"), ("", ""), ("蕎", ""), ("ｚｚｚ", "")] {
            store.dispatch(.archive(.requestWithConditions(inputText: keyword, selectedCategory: category)))
            await store.settle()
            let state = store.state.archiveState
            #expect(!state.isError && state.errorMessage == nil)
            #expect(state.source == .favorites(reason: DownArchiveAPI.Down().description, total: expected(keyword, category).count))
            #expect(state.archiveCellViewObjects.map(\.id) == expected(keyword, category), "\(keyword) in \(category)")
            #expect(state.archiveCellViewObjects.allSatisfy { $0.isStored })
        }
        #expect(!expected("チーズ", "洋食").isEmpty && !expected("蕎", "").isEmpty)
    }

    @Test func heartsWorkOfflineAndReAddingUsesTheStoredObject() async throws {
        let api = DownArchiveAPI()
        let store = makeStore(api: api)
        store.dispatch(.archive(.requestWithConditions(inputText: "", selectedCategory: "")))
        await store.settle()
        let before = try #require(try database.favorites.object(id: 33))
        let row = try #require(store.state.archiveState.archiveCellViewObjects.first { $0.id == 33 })

        store.dispatch(.archive(.deleteArchiveObject(id: 33)))
        await store.settle()
        #expect(store.state.archiveState.hearts[33] == false)
        #expect(try database.favorites.object(id: 33) == nil)

        store.dispatch(.archive(.addArchiveObject(row)))
        await store.settle()
        #expect(store.state.archiveState.hearts[33] == true)
        let after = try #require(try database.favorites.object(id: 33))
        #expect(after.dishName == before.dishName && after.introduction == before.introduction && after.photoUrl == before.photoUrl)
        #expect(api.calls.values == ["search "], "no API round trip to re-add: \(api.calls.values)")
    }

    @Test func whenTheFavoritesCannotBeReadEitherTheSearchFailsWithBothReasons() {
        var state = ArchiveState()
        ArchiveReducer.reduce(&state, .requestWithInputText("蕎"))
        ArchiveReducer.reduce(&state, .catalogFailed(reason: "HTTP 503", favorites: .failed("disk I/O error")))
        #expect(state.isError)
        #expect(state.errorMessage == "search failed: HTTP 503; your favorites could not be read either: disk I/O error")
        #expect(state.source == .catalog)
    }

    @Test func aCatalogAnswerReplacesTheOfflineRowsAndAStaleOfflineAnswerNeverOverwritesIt() async throws {
        // The reducer: a catalog success after an offline answer shows the catalog.
        var state = ArchiveState()
        let entity = BundledCatalog.entities[0]
        ArchiveReducer.reduce(&state, .catalogFailed(reason: "down", favorites: .found([entity], total: 1)))
        #expect(state.source.isOffline)
        ArchiveReducer.reduce(&state, .retry)
        ArchiveReducer.reduce(&state, .success(entities: Array(BundledCatalog.entities.prefix(3)), storedIDs: [entity.id]))
        #expect(state.source == .catalog && state.archiveCellViewObjects.count == 3)

        // The store: a slow failing search, then a newer one that succeeds; the
        // older one's offline answer, arriving last, is dropped.
        let slow = Gate()
        let failures = Recorder<String>()
        failures.append("チーズ")
        let store = makeStore(api: ControllableArchiveAPI(gates: ["チーズ": slow], failures: failures))
        await store.searchOvertakenByANewerOne(slow: slow)
        #expect(store.state.archiveState.source == .catalog)
        #expect(store.state.archiveState.archiveCellViewObjects.map(\.id) == [28, 31])
    }
}
