import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import Synchronization
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
    static let configuration = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/haproxy.cfg")

    let directory: TemporaryDirectory
    let database: String

    init() throws {
        directory = try TemporaryDirectory()
        database = try TestPostgres.server().newDatabase()
    }

    /// `archive-server serve` on the test's database at `port`.
    final class Server {
        let port: Int
        private(set) var process: ChildProcess

        init(port: Int, database: String, directory: TemporaryDirectory) throws {
            self.port = port
            process = try Self.start(port: port, database: database, directory: directory)
        }

        private static func start(port: Int, database: String, directory: TemporaryDirectory) throws -> ChildProcess {
            let process = try ChildProcess(
                ServiceProcess.executable.path, ["--postgres", database, "--port", "\(port)"],
                environment: ServiceProcess.environment(directory), streamingStdout: true)
            guard process.nextLine()?.hasPrefix("http://127.0.0.1:\(port)") == true else { throw ServiceFailed(stderr: process.kill().stderr) }
            return process
        }

        /// Stops it as systemd does (SIGTERM, waiting for its answers in progress), then starts it again.
        func restart(database: String, directory: TemporaryDirectory) throws {
            process.signal(SIGTERM)
            _ = process.wait(orKillAfter: .seconds(60))
            process = try Self.start(port: port, database: database, directory: directory)
        }

        deinit {
            process.signal(SIGTERM)
            process.wait()
        }
    }

    /// HAProxy running `deploy/haproxy.cfg` in front of `servers`, its log in the test's directory.
    final class Balancer {
        let url: String
        let process: ChildProcess

        init(servers: [Server], directory: TemporaryDirectory) throws {
            let port = try LoopbackSocket.freePort()
            var lines: [String] = []
            for line in try String(contentsOf: LoadBalancerTests.configuration, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("    server ") { continue }
                lines.append(line == "    bind :8080" ? "    bind 127.0.0.1:\(port)" : String(line))
            }
            #expect(lines.contains("    bind 127.0.0.1:\(port)"), "deploy/haproxy.cfg binds :8080 no more: update this test")
            for (index, server) in servers.enumerated() { lines.append("    server s\(index) 127.0.0.1:\(server.port) check") }
            let file = directory.path("haproxy.cfg")
            try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            process = try ChildProcess("/bin/sh", ["-c", "exec /usr/sbin/haproxy -db -f \"$1\" >>\"$2\" 2>&1", "sh", file, directory.path("haproxy.log")])
            url = "http://127.0.0.1:\(port)"
            // Up once it answers /health through a server it has checked.
            let url = self.url
            guard Deadline.poll(every: .milliseconds(20), until: { (try? ServiceProcess.call(url, "GET", "/health"))?.status == 200 }) else {
                throw ServiceFailed(stderr: (try? String(contentsOfFile: directory.path("haproxy.log"), encoding: .utf8)) ?? "HAProxy did not start")
            }
        }

        deinit {
            process.signal(SIGTERM)
            process.wait()
        }
    }

    /// `archive-server ARGUMENTS --postgres DATABASE`'s standard output, trimmed.
    func admin(_ arguments: [String]) throws -> String {
        let result = try ChildProcess.run(
            ServiceProcess.executable.path, arguments + ["--postgres", database], environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        guard result.status == 0 else { throw ServiceFailed(stderr: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func anEventStreamThroughTheBalancerHearsAPushThroughIt() throws {
        let servers = [try Server(port: try LoopbackSocket.freePort(), database: database, directory: directory), try Server(port: try LoopbackSocket.freePort(), database: database, directory: directory)]
        let balancer = try Balancer(servers: servers, directory: directory)
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

    /// What a push load counts, shared by its clients' threads.
    final class LoadCounts: Sendable {
        let acknowledged = Mutex<Set<Int>>([])
        let failed = Atomic<Int>(0)
        let retried = Atomic<Int>(0)
        let sent = Atomic<Int>(0)
        /// Signalled once a third of the pushes were sent.
        let third = DispatchSemaphore(value: 0)
    }

    /// What `clients` devices pushing `pushes` favorites each through `url` got acknowledged,
    /// and the pushes that never were (after `attempts` tries each); `halfway` runs on this
    /// thread once a third of the pushes were sent, while the clients go on.
    private func pushLoad(
        through url: String, clients: Int, pushes: Int, attempts: Int = 50, once halfway: () throws -> Void
    ) throws -> (acknowledged: Set<Int>, failed: Int, retried: Int) {
        let tokens = try (0..<clients).map { try admin(["devices", "add", "alice", "c\($0)"]) }
        let counts = LoadCounts(), group = DispatchGroup(), third = clients * pushes / 3
        for client in 0..<clients {
            DispatchQueue.global().async(group: group) {
                let device = Changes.device(UInt8(0x10 + client)), token = tokens[client]
                for index in 1...pushes {
                    let id = client * 10_000 + index
                    var done = false
                    for attempt in 1...attempts where !done {
                        let answer = try? ServiceProcess.push(
                            url, [Changes.stored(id, at: 1_700_000_000_000 + Int64(index), by: device)], device: device, token: token)
                        done = answer?.status == 200
                        if done, attempt > 1 { counts.retried.add(1, ordering: .relaxed) }
                    }
                    if done { counts.acknowledged.withLock { _ = $0.insert(id) } } else { counts.failed.add(1, ordering: .relaxed) }
                    if counts.sent.add(1, ordering: .relaxed).newValue == third { counts.third.signal() }
                }
            }
        }
        counts.third.wait()
        try halfway()
        group.wait()
        return (counts.acknowledged.withLock { $0 }, counts.failed.load(ordering: .relaxed), counts.retried.load(ordering: .relaxed))
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
        let killed = try Server(port: try LoopbackSocket.freePort(), database: database, directory: directory)
        let kept = try Server(port: try LoopbackSocket.freePort(), database: database, directory: directory)
        let balancer = try Balancer(servers: [killed, kept], directory: directory)
        _ = try admin(["users", "add", "alice"])
        let load = try pushLoad(through: balancer.url, clients: 6, pushes: 40) { killed.process.signal(SIGKILL) }
        #expect(load.failed == 0, "pushes never acknowledged, after every retry")
        // Reported, not asserted: the balancer sends again what a server dropped, and under a
        // loaded machine a client still sends one push again now and then (a retry mends it).
        print("LoadBalancerTests: pushes a client sent again: \(load.retried) of \(6 * 40)")
        #expect(load.acknowledged.count == 6 * 40)
        let stored = try stored(through: balancer.url)
        #expect(load.acknowledged.isSubset(of: stored), "acknowledged but not stored: \(load.acknowledged.subtracting(stored).sorted())")
        // The killed server is out of the rotation: the next requests all reach the other.
        for _ in 1...4 { #expect(try ServiceProcess.call(balancer.url, "GET", "/health").status == 200) }
    }

    @Test func aRollingRestartUnderAPushLoadFailsNoPush() throws {
        let first = try Server(port: try LoopbackSocket.freePort(), database: database, directory: directory)
        let second = try Server(port: try LoopbackSocket.freePort(), database: database, directory: directory)
        let balancer = try Balancer(servers: [first, second], directory: directory)
        _ = try admin(["users", "add", "alice"])
        // Restarted one at a time, from the one client thread that calls the closure.
        let load = try pushLoad(through: balancer.url, clients: 6, pushes: 40) {
            for server in [first, second] { try server.restart(database: database, directory: directory) }
        }
        #expect(load.failed == 0, "pushes never acknowledged, after every retry")
        // Reported, not asserted: the balancer sends again what a server dropped, and under a
        // loaded machine a client still sends one push again now and then (a retry mends it).
        print("LoadBalancerTests: pushes a client sent again: \(load.retried) of \(6 * 40)")
        let stored = try stored(through: balancer.url)
        #expect(load.acknowledged.count == 6 * 40 && load.acknowledged.isSubset(of: stored), "acknowledged but not stored: \(load.acknowledged.subtracting(stored).sorted())")
    }
}
