import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import TestSupport
import Testing

/// Every part of docs/OPERATIONS.md's deployment past one process at once, real processes
/// throughout: a PostgreSQL primary with a synchronous streaming standby, HAProxy in front of
/// both (`deploy/haproxy-postgres.cfg`), PgBouncer in transaction mode in front of that, three
/// `archive-server`s reaching PostgreSQL through PgBouncer (their `LISTEN` through the
/// PostgreSQL balancer directly, `--postgres-events`), HAProxy in front of them
/// (`deploy/haproxy.cfg`), `archive` devices, and event streams. One run shows each guarantee
/// of issue 75 and prints the counts of acknowledged and stored pushes:
///
/// - a push on one server is heard by a stream held on another, and by one through the balancer;
/// - under six devices' pushes through the balancer, a server killed with SIGKILL, the
///   PostgreSQL primary killed with SIGKILL and its standby promoted, and a rolling restart
///   (SIGTERM one server at a time) fail no push that the client's retry does not mend, and
///   every acknowledged push is on the new primary;
/// - a stream held across the failover is told to read again once its server listens on the
///   new primary, and hears other servers' pushes afterwards;
/// - devices that sync through the balancer afterwards converge on every acknowledged push.
///
/// `.ci/run` runs this suite in a phase of its own, its time printed, with nothing else
/// running beside it: it sets `FAVORITE_ARCHIVE_DEPLOYMENT_PHASE=1` for its `swift test`
/// phase, which then leaves the suite out, and runs it afterwards with `--filter`. Everywhere
/// else `swift test` runs it with every other suite.
@Suite(.blockingWork, .timeLimit(.minutes(5)), .enabled(if: ProcessInfo.processInfo.environment["FAVORITE_ARCHIVE_DEPLOYMENT_PHASE"] != "1", "in .ci/run's deployment phase"))
struct DeploymentTests {
    /// An event stream of `token`'s device at `url` (a server's or the balancer's), its head read.
    private func stream(at url: String, token: String) throws -> RawHTTPConnection {
        let stream = try RawHTTPConnection(url: url)
        #expect(stream.send("GET \(SyncAPI.eventsPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"))
        let head = try stream.read(until: "retry: 2000")
        #expect(head.contains("text/event-stream"), "\(head)")
        return stream
    }

    @Test func everyPartAtOnceLosesNothingAcknowledgedAndStaysLive() throws {
        let directory = try TemporaryDirectory()
        // PostgreSQL: a primary whose commits wait for its standby.
        let pair = try SynchronousStandbyPair()
        let (primary, standby) = (pair.primary, pair.standby)
        let postgresBalancer = try PostgresBalancer(sockets: [primary.socketDirectory, standby.socketDirectory], directory: directory)
        let pooler = try TestPgBouncer.dedicated(inFrontOf: "127.0.0.1", port: postgresBalancer.port)
        let pooled = "postgres://archive@/favorites?host=\(pooler.socketDirectory)&port=\(TestPgBouncer.port)"
        let events = "postgres://archive@127.0.0.1:\(postgresBalancer.port)/favorites?sslmode=disable"
        let admin = ServiceAdmin(url: pooled, directory: directory)
        try postgresBalancer.waitUntilReachable { _ = try admin(["users", "list"]) }
        _ = try admin(["users", "add", "alice"])
        _ = try admin(["users", "add", "carol"])

        // Three servers through PgBouncer, HAProxy in front of them.
        let servers = try (0..<3).map { _ in try BalancedServer(database: pooled, arguments: ["--postgres-events", events], directory: directory) }
        let (a, b, c) = (servers[0], servers[1], servers[2])
        let balancer = try HTTPBalancer(servers: servers, directory: directory)

        // Events cross servers: a push on A is heard on C and through the balancer.
        let phone = Changes.device(1)
        let phoneToken = try admin(["devices", "add", "alice", "phone"])
        let onC = try stream(at: c.url, token: try admin(["devices", "add", "alice", "laptop"]))
        let throughBalancer = try stream(at: balancer.url, token: try admin(["devices", "add", "alice", "tablet"]))
        let pushed = ContinuousClock.now
        #expect(try ServiceProcess.push(a.url, [Changes.stored(1, at: 1_700_000_000_000, by: phone)], device: phone, token: phoneToken).status == 200)
        _ = try onC.read(until: "event: feed")
        print("DeploymentTests: a push on server A was heard on server C \(ContinuousClock.now - pushed) after it was sent")
        _ = try throughBalancer.read(until: "event: feed")

        // Carol's stream on C, held across everything below; she pushes nothing meanwhile.
        let carol = Changes.device(2), carolToken = try admin(["devices", "add", "carol", "phone"])
        let held = try stream(at: c.url, token: try admin(["devices", "add", "carol", "laptop"]))

        // Six devices push through the balancer while its parts fail one after another.
        let load = PushLoad(through: balancer.url, tokens: try (0..<6).map { try admin(["devices", "add", "alice", "c\($0)"]) })
        #expect(load.waitFor(more: 60), "the pushes never began")
        a.process.signal(SIGKILL)
        #expect(load.waitFor(more: 60), "no push was acknowledged after server A's kill")
        try primary.kill()
        let failover = ContinuousClock.now
        try standby.promote()
        #expect(load.waitFor(more: 100), "no push was acknowledged after the failover")
        // A rolling restart: A (killed above) started again, then B, one at a time.
        try a.restart(database: pooled, directory: directory)
        try b.restart(database: pooled, directory: directory)
        #expect(load.waitFor(more: 60), "no push was acknowledged after the rolling restart")
        let outcome = load.finish()
        let stored = try pair.storedOnStandby(of: "alice")
        print("""
            DeploymentTests: pushes acknowledged \(outcome.acknowledged.count) (\(outcome.sent(after: failover).count) sent after the failover), \
            stored on the new primary \(outcome.acknowledged.intersection(stored).count), never acknowledged \(outcome.failed), \
            acknowledged after a retry \(outcome.retried); the first push sent after the primary's kill was acknowledged \
            \(outcome.firstAcknowledgement(after: failover).map { "\($0)" } ?? "never") after it
            """)
        #expect(outcome.failed == 0, "pushes never acknowledged within a minute of retries")
        #expect(!outcome.sent(after: failover).isEmpty, "no push was sent after the failover")
        let lost = outcome.acknowledged.subtracting(stored)
        #expect(lost.isEmpty, "\(lost.count) pushes acknowledged but lost, among them \(lost.sorted().prefix(20))")
        #expect(try standby.execute("SELECT pg_is_in_recovery()") == "f")

        // Each server listens on the new primary; C tells its streams to read again once it does.
        #expect(Deadline.poll(every: .milliseconds(50)) {
            (try? standby.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'archive-server events'")) == "3"
        }, "the servers never listened on the new primary")
        _ = try held.read(until: "event: feed", timeout: .seconds(30))
        // And a push on A, after the failover, reaches carol's streams on C.
        let fresh = try stream(at: c.url, token: try admin(["devices", "add", "carol", "tablet"]))
        #expect(try ServiceProcess.push(a.url, [Changes.stored(2, at: 1_700_000_000_000, by: carol)], device: carol, token: carolToken).status == 200)
        _ = try fresh.read(until: "event: feed")
        _ = try held.read(until: "event: feed")

        // Two devices syncing through the balancer end with the same favorites, every
        // acknowledged one among them.
        let converged = try ["desktop", "notebook"].map { try admin.favoritesOfNewDevice($0, of: "alice", syncingWith: balancer.url) }
        #expect(converged.count == 2 && converged[0] == converged[1], "the devices differ")
        #expect(outcome.acknowledged.subtracting(converged.first ?? []).isEmpty, "the devices lack acknowledged pushes")
    }
}
