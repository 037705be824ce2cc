import ArchiveCore
import ArchiveStorage
import Foundation
import Redux
import TestSupport
import Testing

/// Reads of more than one statement see one moment of the database, even while
/// another process writes: a page of favorites and the total shown with it agree.
@MainActor
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct SnapshotReadTests {
    /// The writer stores and removes one favorite in a loop until the test has seen it
    /// mid-churn (a page holding the churned favorite) often enough, then stores 50 at once;
    /// every read, during the churn and during the final batch, must agree with its total.
    @Test func aPageAndItsTotalAgreeWhileAnotherProcessWrites() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("snapshot.sqlite3")
        let stop = directory.path("stop")
        let database = try ArchiveDatabase(path: path)
        let writer = try helper(["churn-until", path, stop])
        // The store's effects (the page reads) on threads of their own: on the cooperative pool,
        // beside the whole parallel run, each read waited its turn for about a second and the
        // test took five minutes, its time limit, while the writer churned beside it.
        let store = AppStore(environment: ArchiveEnvironment(database: database), effectExecutor: BlockingWorkExecutor.shared)
        var rounds = 0
        var midChurn = 0  // reads that saw the churned favorite: the writer was running
        var disagreements: [String] = []
        func read() async {
            store.dispatch(.favorites(.requestPage(after: nil, limit: StoredArchivePage.maximumLimit)))
            await store.settle()
            let state = store.state.favoritesState
            if let message = state.errorMessage { disagreements.append(message) }
            if state.favorites.count != min(state.totalCount ?? -1, StoredArchivePage.maximumLimit) {
                disagreements.append("round \(rounds): \(state.favorites.count) rows, total \(state.totalCount ?? -1)")
            }
            if state.favorites.map(\.id) == [1_000_001] { midChurn += 1 }
            rounds += 1
        }
        // Read through the store (the Favorites view's page load) while the writer churns,
        // until 100 reads have seen it mid-churn (bounded, in case the writer died).
        while midChurn < 100, rounds < 100_000 { await read() }
        #expect(midChurn >= 100, "only \(midChurn) of \(rounds) reads overlapped the writer: \(writer.kill().stderr)")
        // Then beside the final batch, until it has landed.
        #expect(TestFile.create(atPath: stop, contents: nil))
        while try database.favorites.count() < 50, rounds < 200_000 { await read() }
        await read()
        #expect(writer.nextLine()?.hasPrefix("done ") == true, "\(writer.wait().stderr)")
        #expect(store.state.favoritesState.totalCount == 50)
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }
}
