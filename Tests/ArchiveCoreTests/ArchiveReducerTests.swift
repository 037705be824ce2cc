import ArchiveAPI
import ArchiveCore
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ArchiveReducerTests {
    static let entities = [
        ArchiveSceneEntity(id: 17, photoUrl: "u17", category: "洋食", dishName: "チーズハンバーグ", shopName: "s", introduction: "i"),
        ArchiveSceneEntity(id: 21, photoUrl: "u21", category: "洋食", dishName: "マカロニグラタン", shopName: "s", introduction: "チーズ"),
        ArchiveSceneEntity(id: 33, photoUrl: "u33", category: "洋食", dishName: "チーズオムレツ", shopName: "s", introduction: "i"),
    ]

    func reduce(_ actions: ArchiveAction..., from initial: ArchiveState = ArchiveState()) -> ArchiveState {
        var state = initial
        for action in actions { ArchiveReducer.reduce(&state, action) }
        return state
    }

    @Test func theOriginalScenarioMergesStoredIDsIntoTheRows() {
        let state = reduce(
            .requestWithInputText("チーズ"),
            .requestWithSelectedCategory("洋食"),
            .success(entities: Self.entities, storedIDs: [17, 33]))
        #expect(state.inputText == "チーズ")
        #expect(state.selectedCategory == "洋食")
        #expect(!state.isLoading && !state.isError && state.hasLoaded)
        #expect(state.archiveCellViewObjects.map(\.id) == [17, 21, 33])
        #expect(state.hearts == [17: true, 21: false, 33: true])
        #expect(state.archiveCellViewObjects[0].dishName == "チーズハンバーグ")
    }

    @Test func eachRequestKeepsTheOtherConditionAndNoConditionsClearsBoth() {
        var state = reduce(.requestWithInputText("チーズ"), .requestWithSelectedCategory("洋食"))
        #expect(state.isLoading)
        state = reduce(.requestWithInputText("オムレツ"), from: state)
        #expect(state.selectedCategory == "洋食" && state.inputText == "オムレツ")
        state = reduce(.requestWithSelectedCategory(""), from: state)
        #expect(state.selectedCategory == "" && state.inputText == "オムレツ")
        state = reduce(.requestWithNoConditions, from: state)
        #expect(state.selectedCategory == "" && state.inputText == "" && state.isLoading)
    }

    @Test func aFailureKeepsConditionsAndRowsAndRetryStartsLoadingAgain() {
        let loaded = reduce(.requestWithInputText("チーズ"), .success(entities: Self.entities, storedIDs: [17]))
        let failed = reduce(.requestWithSelectedCategory("中華"), .failure(message: "the catalog is down"), from: loaded)
        #expect(failed.isError && !failed.isLoading)
        #expect(failed.errorMessage == "the catalog is down")
        #expect(failed.inputText == "チーズ" && failed.selectedCategory == "中華")
        #expect(failed.archiveCellViewObjects == loaded.archiveCellViewObjects)
        let retrying = reduce(.retry, from: failed)
        #expect(retrying.isLoading && !retrying.isError && retrying.errorMessage == nil)
    }

    @Test func heartsChangeOnlyWhenTheStorageConfirms() {
        let loaded = reduce(.success(entities: Self.entities, storedIDs: []))
        let adding = reduce(.addArchiveObject(loaded.archiveCellViewObjects[1]), from: loaded)
        #expect(adding.pendingStorageIDs == [21])
        #expect(adding.hearts[21] == false)
        let added = reduce(.addArchiveObjectSucceeded(id: 21, wasStored: false), from: adding)
        #expect(added.hearts[21] == true && added.pendingStorageIDs.isEmpty)

        let failedDelete = reduce(.deleteArchiveObject(id: 21), .deleteArchiveObjectFailed(id: 21, message: "disk full"), from: added)
        #expect(failedDelete.hearts[21] == true)
        #expect(failedDelete.storageErrorMessage == "disk full")
        #expect(failedDelete.pendingStorageIDs.isEmpty)
        #expect(reduce(.dismissStorageError, from: failedDelete).storageErrorMessage == nil)

        let deleted = reduce(.deleteArchiveObject(id: 21), .deleteArchiveObjectSucceeded(id: 21, wasStored: true), from: added)
        #expect(deleted.hearts[21] == false)
    }

    @Test func aStoreConfirmedDuringASearchWinsOverThatSearchsEarlierRead() {
        // The search read its stored IDs before 21 was stored; the add was confirmed before the results arrived.
        let state = reduce(
            .requestWithInputText("チーズ"),
            .addArchiveObjectWithID(21), .addArchiveObjectSucceeded(id: 21, wasStored: false),
            .deleteArchiveObject(id: 17), .deleteArchiveObjectSucceeded(id: 17, wasStored: true),
            .success(entities: Self.entities, storedIDs: [17, 33]))
        #expect(state.hearts == [17: false, 21: true, 33: true])
        #expect(state.storedChangesDuringSearch.isEmpty)
    }

    @Test func aRefreshUpdatesShownRowsButNotThoseInFlight() {
        let loaded = reduce(.success(entities: Self.entities, storedIDs: [17]))
        let refreshed = reduce(.deleteArchiveObject(id: 33), .storedStatusRefreshed(storedIDs: [21, 33], among: [17, 21, 33]), from: loaded)
        #expect(refreshed.hearts == [17: false, 21: true, 33: false])
    }
}
