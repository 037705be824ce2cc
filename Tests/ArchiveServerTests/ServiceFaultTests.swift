import ArchiveStorage
import ArchiveSyncWire
import Foundation
import Synchronization
import TestSupport
import Testing

/// The service broken on purpose, on the real binary and both backends.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServiceFaultTests {
    /// A device pushes batch after batch while the server is killed (SIGKILL) under it, three
    /// times: after each restart on the same database, every change of every push the
    /// device saw acknowledged is there, and the push that was in flight, sent again, lands
    /// once (its changes applied or already held, none twice).
    @Test(arguments: ServiceBackend.allCases)
    func acknowledgedPushesSurviveAKilledServer(backend: ServiceBackend) throws {
        var random = SeededGenerator(seed: 48)
        var server = try ServiceProcess(backend)
        let token = try server.addUser("alice")
        let phone = Changes.device(0x48), reader = Changes.device(0x49)
        var acknowledged: Set<Int> = []
        var nextID = 1
        for round in 0..<3 {
            let killAfter = Int.random(in: 3...12, using: &random)
            var acks = 0
            var inFlight: [FavoriteChange] = []
            let killed = Atomic<Bool>(false)
            while true {
                let batch = (0..<Int.random(in: 1...40, using: &random)).map { offset in
                    Changes.stored(nextID + offset, at: 1_000 + Int64(nextID + offset), by: phone, text: "r\(round)")
                }
                nextID += batch.count
                let answer = try? server.push(batch, device: phone, through: Int64(nextID), token: token)
                if answer?.status == 200 {
                    acknowledged.formUnion(batch.map(\.id))
                    acks += 1
                } else {
                    // The push the kill cut short (or, on a busy machine, one that timed out
                    // first: unacknowledged all the same, and the server is killed now).
                    inFlight = batch
                    if !killed.exchange(true, ordering: .relaxed) { server.process.signal(SIGKILL) }
                    break
                }
                if acks == killAfter, !killed.exchange(true, ordering: .relaxed) {
                    // Killed from another thread while the next pushes are sent.
                    let pid = server.process.pid
                    Thread.detachNewThread { kill(pid, SIGKILL) }
                }
                try #require(acks < 10_000, "the server was never killed")
            }
            try #require(server.process.wait(orKillAfter: Deadline.standard) != nil, "the killed server did not end")
            server = try ServiceProcess(backend, database: server.database, directory: server.directory)
            // Every acknowledged change is there.
            var held: Set<Int> = []
            var cursor: Int64 = 0
            while true {
                let (response, page) = try server.pull(device: reader, cursor: cursor, token: token)
                let read = try #require(page, "pull answered \(response.status): \(response.text)")
                held.formUnion(read.changes.map(\.id))
                cursor = read.cursor
                if !read.hasMore { break }
            }
            #expect(acknowledged.isSubset(of: held), "\(backend) round \(round): \(acknowledged.subtracting(held).count) acknowledged changes lost")
            // The push that was in flight, sent again, lands once.
            let again = try server.push(inFlight, device: phone, through: Int64(nextID), token: token)
            #expect(again.status == 200, "\(again.text)")
            let summary = try JSONDecoder().decode(SyncPushResponse.self, from: Data(again.body))
            #expect(summary.applied + summary.alreadyHeld == inFlight.count && summary.superseded == 0, "\(summary)")
            acknowledged.formUnion(inFlight.map(\.id))
        }
        // Each change once: the user's favorites are exactly the acknowledged ones.
        let listed = try server.admin(["users", "list", "--json"])
        let users = (try listed.json() as? [String: Any])?["users"] as? [[String: Any]]
        #expect(users?.first?["favorites"] as? Int == acknowledged.count, "\(listed.stdout)")
    }
}
