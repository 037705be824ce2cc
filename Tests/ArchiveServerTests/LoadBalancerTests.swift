import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import TestSupport
import Testing

/// `deploy/haproxy.cfg`, the balancer OPERATIONS.md ships, run as written (its bind and
/// server lines pointed at the test's processes) by Debian's HAProxy in front of two real
/// `archive-server`s on one PostgreSQL: an event stream through it hears a push through it,
/// unbuffered; a server killed with SIGKILL under a push load loses no acknowledged push, and
/// the clients' next requests go to the other; a rolling restart (SIGTERM one server at a
/// time, under load) fails no push that the client's retry does not mend (the balancer sends
/// again what a server dropped: without it, pushes failed after every retry).
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct LoadBalancerTests {
    let directory: TemporaryDirectory
    let database: String

    init() throws {
        directory = try TemporaryDirectory()
        database = try TestPostgres.server().newDatabase()
    }

    /// `archive-server ARGUMENTS --postgres DATABASE`.
    var admin: ServiceAdmin { ServiceAdmin(url: database, directory: directory) }

    @Test func anEventStreamThroughTheBalancerHearsAPushThroughIt() throws {
        let servers = [try BalancedServer(database: database, directory: directory), try BalancedServer(database: database, directory: directory)]
        let balancer = try HTTPBalancer(servers: servers, directory: directory)
        let phoneToken = try admin(["users", "add", "alice"]), laptopToken = try admin(["devices", "add", "alice", "laptop"])
        let stream = try RawHTTPConnection(url: balancer.url)
        #expect(stream.send("GET \(SyncAPI.eventsPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(laptopToken)\r\n\r\n"))
        #expect(try stream.read(until: "retry: 2000").contains("text/event-stream"))
        let phone = Changes.device(1)
        // Two pushes: the stream holds a connection to one server, so the balancer sends at
        // least one of them to the other (leastconn); each is heard.
        for id in 1...2 {
            #expect(try ServiceProcess.push(balancer.url, [Changes.stored(id, at: 1_700_000_000_000 + Int64(id), by: phone)], device: phone, token: phoneToken).status == 200)
            _ = try stream.read(until: "event: feed")
        }
    }

    /// What six devices pushing through `url` got acknowledged, `halfway` run on this thread
    /// once 80 pushes were, and 160 more acknowledged after it.
    private func pushLoad(through url: String, once halfway: () throws -> Void) throws -> PushLoad.Outcome {
        let tokens = try (0..<6).map { try admin(["devices", "add", "alice", "c\($0)"]) }
        let load = PushLoad(through: url, tokens: tokens)
        #expect(load.waitFor(more: 80), "the pushes never began")
        try halfway()
        #expect(load.waitFor(more: 160), "the pushes stopped")
        return load.finish()
    }

    /// The IDs of alice's stored favorites, read through `url` by a new device of hers.
    private func stored(through url: String) throws -> Set<Int> {
        let token = try admin(["devices", "add", "alice", "reader"])
        let reader = Changes.device(0xEE)
        var cursor: Int64 = 0, ids: Set<Int> = []
        while true {
            let answer = try ServiceProcess.call(url, "GET", SyncAPI.pullPath + "?device=\(reader.description)&cursor=\(cursor)&limit=1000", token: token)
            let page = try JSONDecoder().decode(SyncPullResponse.self, from: Data(answer.body))
            for change in page.changes where change.favorite != nil { ids.insert(change.id) }
            cursor = page.cursor
            if !page.hasMore { return ids }
        }
    }

    @Test func aServerKilledUnderAPushLoadLosesNothingAcknowledged() throws {
        let killed = try BalancedServer(database: database, directory: directory)
        let kept = try BalancedServer(database: database, directory: directory)
        let balancer = try HTTPBalancer(servers: [killed, kept], directory: directory)
        _ = try admin(["users", "add", "alice"])
        let load = try pushLoad(through: balancer.url) { killed.process.signal(SIGKILL) }
        #expect(load.failed == 0, "pushes never acknowledged, after every retry")
        // Reported, not asserted: the balancer sends again what a server dropped, and under a
        // loaded machine a client still sends one push again now and then (a retry mends it).
        print("LoadBalancerTests: pushes a client sent again: \(load.retried) of \(load.acknowledged.count)")
        let stored = try stored(through: balancer.url)
        #expect(load.acknowledged.isSubset(of: stored), "acknowledged but not stored: \(load.acknowledged.subtracting(stored).sorted())")
        // The killed server is out of the rotation: the next requests all reach the other.
        for _ in 1...4 { #expect(try ServiceProcess.call(balancer.url, "GET", "/health").status == 200) }
    }

    @Test func aRollingRestartUnderAPushLoadFailsNoPush() throws {
        let first = try BalancedServer(database: database, directory: directory)
        let second = try BalancedServer(database: database, directory: directory)
        let balancer = try HTTPBalancer(servers: [first, second], directory: directory)
        _ = try admin(["users", "add", "alice"])
        // Restarted one at a time, from the one client thread that calls the closure.
        let load = try pushLoad(through: balancer.url) {
            for server in [first, second] { try server.restart(database: database, directory: directory) }
        }
        #expect(load.failed == 0, "pushes never acknowledged, after every retry")
        // Reported, not asserted: the balancer sends again what a server dropped, and under a
        // loaded machine a client still sends one push again now and then (a retry mends it).
        print("LoadBalancerTests: pushes a client sent again: \(load.retried) of \(load.acknowledged.count)")
        let stored = try stored(through: balancer.url)
        #expect(load.acknowledged.isSubset(of: stored), "acknowledged but not stored: \(load.acknowledged.subtracting(stored).sorted())")
    }
}
