import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import TestSupport
import Testing

/// A PostgreSQL primary with a synchronous streaming standby (`pg_basebackup -R`,
/// `synchronous_standby_names`), `deploy/haproxy-postgres.cfg` in front of both as written
/// (its bind, server and command lines pointed at the test's), and a real `archive-server`
/// reaching PostgreSQL through it: the primary is killed with SIGKILL under six devices'
/// pushes and the standby promoted (`pg_ctl promote`); the server, never restarted, writes to
/// the new primary within seconds, every push it acknowledged, before or after, is there, and
/// `archive` devices syncing afterwards converge on them.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct FailoverTests {
    @Test func aPrimaryKilledUnderAPushLoadLosesNothingAcknowledged() throws {
        let directory = try TemporaryDirectory()
        let pair = try SynchronousStandbyPair()
        let (primary, standby) = (pair.primary, pair.standby)
        let balancer = try PostgresBalancer(sockets: [primary.socketDirectory, standby.socketDirectory], directory: directory)
        let url = "postgres://archive@127.0.0.1:\(balancer.port)/favorites?sslmode=disable"
        let admin = ServiceAdmin(url: url, directory: directory)
        // The balancer checks its servers first; the admin command waits for it (`users list`,
        // which writes nothing, so that a try that failed late leaves no user behind).
        try balancer.waitUntilReachable { _ = try admin(["users", "list"]) }
        _ = try admin(["users", "add", "alice"])
        let server = try ServiceProcess(.postgres, database: url, directory: directory)
        let tokens = try (0..<6).map { try admin(["devices", "add", "alice", "c\($0)"]) }
        let load = PushLoad(through: server.url, tokens: tokens)
        #expect(load.waitFor(more: 80), "the pushes never began")
        try primary.kill()
        let killed = ContinuousClock.now
        try standby.promote()
        // Pushes sent after the kill, which only the new primary could acknowledge.
        #expect(load.waitFor(more: 160), "no push was acknowledged after the failover")
        let outcome = load.finish()
        // Reported, not asserted (a busy machine takes longer): the time without a primary.
        if let first = outcome.firstAcknowledgement(after: killed) {
            print("FailoverTests: the first push sent after the primary's kill was acknowledged \(first) after the kill")
        }
        #expect(outcome.failed == 0, "pushes never acknowledged within a minute of retries")
        let acknowledged = outcome.acknowledged
        #expect(!outcome.sent(after: killed).isEmpty)
        // Everything acknowledged is on the new primary, read there directly.
        let stored = try pair.storedOnStandby(of: "alice")
        #expect(acknowledged.isSubset(of: stored), "acknowledged but lost in the failover: \(acknowledged.subtracting(stored).sorted())")
        #expect(try standby.execute("SELECT pg_is_in_recovery()") == "f")
        // Two devices that sync through the same server afterwards end with the same
        // favorites, every acknowledged one among them.
        let held = try ["phone", "laptop"].map { try admin.favoritesOfNewDevice($0, of: "alice", syncingWith: server.url) }
        #expect(held.count == 2 && held[0] == held[1] && acknowledged.isSubset(of: held[0]), "the devices differ or lack acknowledged pushes")
    }
}
