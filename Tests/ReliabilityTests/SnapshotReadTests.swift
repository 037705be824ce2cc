import ArchiveCore
import ArchiveStorage
import Foundation
import Redux
import TestSupport
import Testing

/// Reads of more than one statement see one moment of the database, even while
/// another process writes: a page of favorites and the total shown with it agree.
@MainActor
@Suite(.serialized)
struct SnapshotReadTests {
    @Test func aPageAndItsTotalAgreeWhileAnotherProcessWrites() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("snapshot.sqlite3")
        let database = try ArchiveDatabase(path: path)
        let writer = try helper(["churn", path, "0", "20000"])
        let store = AppStore(environment: ArchiveEnvironment(database: database))
        var rounds = 0
        var disagreements: [String] = []
        // Read through the store (the Favorites view's page load) as long as the writer runs.
        while rounds < 2_000 {
            store.dispatch(.favorites(.requestPage(after: nil, limit: StoredArchivePage.maximumLimit)))
            await store.finishEffects()
            let state = store.state.favoritesState
            if let message = state.errorMessage { disagreements.append(message) }
            if state.favorites.count != min(state.totalCount ?? -1, StoredArchivePage.maximumLimit) {
                disagreements.append("round \(rounds): \(state.favorites.count) rows, total \(state.totalCount ?? -1)")
            }
            rounds += 1
            if rounds % 100 == 0, try database.favorites.count() >= 50 { break }  // the writer reached its last step
        }
        #expect(writer.nextLine() == "done 20000", "\(writer.wait().stderr)")
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        #expect(rounds >= 100, "too few reads ran beside the writer to prove anything")
    }
}
