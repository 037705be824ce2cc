import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import TestSupport
import Testing
import ArchiveSyncModel

@MainActor
@Suite(.timeLimit(.minutes(5)))
struct ArchiveStoreTests {
    let database: ArchiveDatabase

    init() throws {
        database = try ArchiveDatabase.inMemory()
    }

    func makeStore(api: any RequestArchiveRepository = BundledArchiveRepository(), favorites: (any StoredArchiveDataRepository)? = nil) -> AppStore {
        AppStore(environment: ArchiveEnvironment(
            requestArchiveRepository: api,
            storedArchiveDataRepository: favorites ?? database.favorites,
            onboardingRepository: database.onboarding))
    }

    @Test func theOriginalScenarioOnTheBundledCatalogWithTwoStoredFavorites() async throws {
        try database.favorites.create(try await storedObject(17))
        try database.favorites.create(try await storedObject(33))
        let store = makeStore()
        store.dispatch(.archive(.requestWithInputText("チーズ")))
        store.dispatch(.archive(.requestWithSelectedCategory("洋食")))
        await store.settle()
        let state = store.state.archiveState
        #expect(!state.isLoading && !state.isError)
        #expect(state.archiveCellViewObjects.map(\.id) == [17, 21, 33])
        #expect(state.hearts == [17: true, 21: false, 33: true])
    }

    @Test func heartingARowPersistsItAndComesBackThroughTheState() async throws {
        let store = makeStore()
        store.dispatch(.archive(.requestWithInputText("チーズ")))
        await store.settle()
        let row = try #require(store.state.archiveState.archiveCellViewObjects.first { $0.id == 21 })
        store.dispatch(.archive(.addArchiveObject(row)))
        #expect(store.state.archiveState.pendingStorageIDs == [21])
        await store.settle()
        #expect(store.state.archiveState.hearts[21] == true)
        #expect(try database.favorites.object(id: 21)?.dishName == "マカロニグラタン")

        store.dispatch(.archive(.deleteArchiveObject(id: 21)))
        await store.settle()
        #expect(store.state.archiveState.hearts[21] == false)
        #expect(try !database.favorites.contains(id: 21))
    }

    @Test func storeThenUnstoreDispatchedBackToBackApplyInOrder() async throws {
        let store = makeStore()
        store.dispatch(.archive(.requestWithNoConditions))
        await store.settle()
        for _ in 0..<5 {
            store.dispatch(.archive(.addArchiveObjectWithID(5)))
            store.dispatch(.archive(.deleteArchiveObject(id: 5)))
        }
        store.dispatch(.archive(.addArchiveObjectWithID(6)))
        await store.settle()
        #expect(try !database.favorites.contains(id: 5))
        #expect(try database.favorites.contains(id: 6))
        #expect(store.state.archiveState.hearts[5] == false)
        #expect(store.state.archiveState.hearts[6] == true)
    }

    @Test func aSlowOlderSearchNeverOverwritesANewerOne() async throws {
        let slow = Gate()
        let api = ControllableArchiveAPI(gates: ["チーズ": slow])
        let store = makeStore(api: api)
        store.dispatch(.archive(.requestWithInputText("チーズ")))
        await slow.waitForArrivals(1)
        store.dispatch(.archive(.requestWithInputText("餃子")))
        await store.waitUntil { !$0.archiveState.isLoading }
        #expect(store.state.archiveState.archiveCellViewObjects.map(\.id) == [28, 31])

        await slow.open()  // the older search answers now, too late
        // Returns once the older effect's body has returned too, so any result it
        // could have sent has reached the store (and been dropped) by now.
        await store.settle()
        #expect(api.calls.values == ["チーズ", "餃子"])
        #expect(store.state.archiveState.archiveCellViewObjects.map(\.id) == [28, 31])
        #expect(store.state.archiveState.inputText == "餃子")
        #expect(!store.state.archiveState.isLoading)
    }

    @Test func aFavoriteAddedWhileASearchIsInFlightShowsInItsResults() async throws {
        let gate = Gate()
        let store = makeStore(api: ControllableArchiveAPI(gates: ["チーズ": gate]))
        store.dispatch(.archive(.requestWithInputText("チーズ")))
        await gate.waitForArrivals(1)
        try database.favorites.create(try await storedObject(33))  // e.g. by another front
        store.dispatch(.archive(.addArchiveObjectWithID(17)))
        store.dispatch(.archive(.deleteArchiveObject(id: 33)))
        await store.waitUntil { $0.archiveState.pendingStorageIDs.isEmpty }
        await gate.open()
        await store.settle()
        #expect(store.state.archiveState.hearts[17] == true)
        #expect(store.state.archiveState.hearts[33] == false)
        #expect(try database.favorites.storedIDs(among: [17, 33]) == [17])
    }

    @Test func aFailingStoreOrUnstoreIsAnErrorStateAndEveryHeartStaysTruthful() async throws {
        try database.favorites.create(try await storedObject(17))
        let store = makeStore(favorites: FailingWritesRepository(base: database.favorites))
        store.dispatch(.archive(.requestWithInputText("チーズ")))
        store.dispatch(.archive(.requestWithSelectedCategory("洋食")))
        await store.settle()
        let before = store.state.archiveState.hearts
        #expect(before == [17: true, 21: false, 33: false])

        let row = try #require(store.state.archiveState.archiveCellViewObjects.first { $0.id == 21 })
        store.dispatch(.archive(.addArchiveObject(row)))
        await store.settle()
        #expect(store.state.archiveState.storageErrorMessage?.contains("disk full") == true)
        #expect(store.state.archiveState.hearts == before)

        store.dispatch(.archive(.deleteArchiveObject(id: 17)))
        await store.settle()
        #expect(store.state.archiveState.storageErrorMessage?.contains("cannot remove 17") == true)
        #expect(store.state.archiveState.hearts == before)
        #expect(store.state.archiveState.pendingStorageIDs.isEmpty)
        #expect(try database.favorites.storedIDs(among: [17, 21, 33]) == [17])
    }

    @Test func anAPIFailureKeepsTheConditionsAnswersFromTheFavoritesAndRetrySucceeds() async throws {
        let failures = Recorder<String>()
        failures.append("チーズ")
        let store = makeStore(api: ControllableArchiveAPI(failures: failures))
        store.dispatch(.archive(.requestWithSelectedCategory("洋食")))
        await store.settle()
        store.dispatch(.archive(.requestWithInputText("チーズ")))
        await store.settle()
        let failed = store.state.archiveState
        #expect(!failed.isError)
        #expect(failed.source == .favorites(reason: "the catalog is down", total: 0))
        #expect(failed.archiveCellViewObjects.isEmpty)
        #expect(failed.inputText == "チーズ" && failed.selectedCategory == "洋食")

        store.dispatch(.archive(.retry))
        await store.settle()
        #expect(store.state.archiveState.source == .catalog)
        #expect(store.state.archiveState.archiveCellViewObjects.map(\.id) == [17, 21, 33])
    }

    @Test func addingAnUnknownIDIsAClearFailure() async throws {
        let store = makeStore()
        store.dispatch(.archive(.addArchiveObjectWithID(999)))
        await store.settle()
        #expect(store.state.archiveState.storageErrorMessage?.contains("no dish with ID 999") == true)
        #expect(try database.favorites.count() == 0)
    }

    @Test func aRefreshPicksUpChangesMadeByAnotherProcess() async throws {
        let store = makeStore()
        store.dispatch(.archive(.requestWithInputText("チーズ")))
        await store.settle()
        #expect(store.state.archiveState.hearts[17] == false)
        try database.favorites.create(try await storedObject(17))
        store.dispatch(.archive(.refreshStoredStatus))
        await store.settle()
        #expect(store.state.archiveState.hearts[17] == true)
    }

    @Test func onboardingShowsOnANewDatabaseAndNeverAgainOnceClosed() async throws {
        let store = makeStore()
        store.dispatch(.onboarding(.request))
        await store.settle()
        #expect(store.state.onboardingState.showOnboarding)
        store.dispatch(.onboarding(.close))
        #expect(!store.state.onboardingState.showOnboarding)
        await store.settle()
        #expect(try !database.onboarding.shouldShowOnboarding())

        let relaunched = makeStore()
        relaunched.dispatch(.onboarding(.request))
        await relaunched.settle()
        #expect(!relaunched.state.onboardingState.showOnboarding)
    }
}

@MainActor
@Suite(.timeLimit(.minutes(5)))
struct ExternalChangesTests {
    @Test func aCommitByAnotherConnectionIsNoticedAndTheHeartsAreReRead() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite3")
        let mine = try ArchiveDatabase(path: path)
        let theirs = try ArchiveDatabase(path: path)
        let store = AppStore(environment: ArchiveEnvironment(database: mine))
        store.dispatch(.archive(.requestWithInputText("チーズ")))
        store.dispatch(.favorites(.requestPage(after: nil, limit: 10)))
        await store.settle()
        #expect(store.state.archiveState.hearts[17] == false)

        store.dispatch(.watchExternalChanges(interval: .milliseconds(10)))
        try theirs.favorites.create(try await storedObject(17))
        await store.waitUntil { $0.archiveState.hearts[17] == true && $0.favoritesState.favorites.map(\.id) == [17] }
        store.dispatch(.stopWatchingExternalChanges)
        await store.settle()
        #expect(!store.hasEffectsInFlight)
    }
}
