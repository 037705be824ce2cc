import ArchiveSyncClient
import ArchiveStorage
import ArchiveSyncWire
import Foundation
import TestSupport
import Testing
import ArchiveSyncModel

/// `ServerSyncSession` against a service that answers as the API says it never would.
@Suite(.timeLimit(.minutes(5)))
struct HostileServiceTests {
    /// Pages that say "more" without moving the cursor, or hold more than asked.
    struct Stuck: SyncTransport {
        let oversized: Bool

        func pull(device: DeviceID, cursor: Int64, limit: Int) async throws -> SyncPullResponse {
            let feed = String(repeating: "ab", count: 16)
            guard limit > 0 else { return SyncPullResponse(feed: feed, changes: [], cursor: 0, hasMore: true, reset: false, pushed: 0) }
            let count = oversized ? limit + 1 : 1
            let changes = (1...count).map { id in
                WireChange(FavoriteChange(id: id, stamp: ChangeStamp(time: HybridTimestamp(milliseconds: 1_000), device: DeviceID(bytes: [UInt8](repeating: 9, count: 16))!), state: .removed))
            }
            return SyncPullResponse(feed: feed, changes: changes, cursor: oversized ? cursor + 1 : cursor, hasMore: true, reset: false, pushed: 0)
        }

        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
            SyncPushResponse(applied: 0, superseded: 0, alreadyHeld: 0, pushed: request.through)
        }
    }

    /// Refused as a bad answer that says why, with nothing of the page applied and the
    /// cursor kept for the feed where it was (seen hang without the check).
    @Test(arguments: [false, true])
    func aPageThatDoesNotMoveForwardIsRefused(oversized: Bool) async throws {
        let database = try ArchiveDatabase.inMemory()
        let feed = try #require(FeedID(hex: String(repeating: "ab", count: 16)))
        let error = await #expect(throws: SyncTransportError.self) {
            _ = try await ServerSyncSession.run(database, through: Stuck(oversized: oversized), pageLimit: 5)
        }
        guard case .badAnswer(_, let reason) = error else {
            Issue.record("not refused as a bad answer: \(String(describing: error))")
            return
        }
        #expect(reason.contains(oversized ? "more than the 5 asked" : "it does not move forward"), "\(reason)")
        #expect(try database.favorites.latestChangeSeq() == 0 && database.favorites.tombstoneCount() == 0, "something of the page was applied")
        #expect(try database.favorites.receivedCursor(from: feed) == 0, "the cursor moved")
    }
}
