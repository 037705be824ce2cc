import ArchiveServerStorage
import ArchiveServer
import ArchiveServerPostgres
import ArchiveStorage
import ArchiveSyncWire
import TestSupport
import Testing
import ArchiveSyncModel

/// A page's reads on PostgreSQL (`favorites`, `held`) are of one moment: the feed's
/// position and the rows come from one snapshot (`REPEATABLE READ READ ONLY`), as on SQLite.
/// Favorite `k` is pushed as the feed's `k`-th change while pages are read: a page never
/// shows a favorite past the position it gives. Seen red with the reads outside a
/// transaction (two snapshots): favorites past the position within the first few hundred
/// reads.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct PostgresPageSnapshotTests {
    @Test func aPageNeverShowsAFavoritePastItsPosition() async throws {
        try await PostgresOneStatementTests.withStorage(connections: 4) { storage, _ in
            let user = try await PostgresOneStatementTests.userWithBoundPhone("alice", on: storage)  // favorite 1, seq 1
            let phone = PostgresOneStatementTests.phone
            let pushes = 400
            let seen = try await withThrowingTaskGroup(of: [String].self) { group in
                group.addTask {
                    for id in 2...pushes {
                        let answer = try await storage.push(
                            [Changes.stored(id, at: PostgresOneStatementTests.start + Int64(id), by: phone)], from: phone, through: Int64(id), seen: 0, for: user)
                        #expect(answer.applied == 1)
                    }
                    return []
                }
                for _ in 0..<2 {
                    group.addTask {
                        var torn: [String] = []
                        var position: Int64 = 0
                        while position < Int64(pushes) {
                            let page = try await storage.favorites(of: user, matching: "", after: nil, limit: 50, window: 20_000)
                            if let past = page.favorites.first(where: { Int64($0.id) > page.position }) {
                                torn.append("page at \(page.position) shows favorite \(past.id)")
                            }
                            let held = try await storage.held(Array(1...pushes), of: user)
                            if let past = held.changes.keys.first(where: { Int64($0) > held.position }) {
                                torn.append("held at \(held.position) holds favorite \(past)")
                            }
                            position = min(page.position, held.position)
                        }
                        return torn
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(seen.isEmpty, "\(seen.count) torn reads: \(seen.prefix(5))")
        }
    }
}
