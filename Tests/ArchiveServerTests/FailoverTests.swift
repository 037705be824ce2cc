import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import Synchronization
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
    static let deploy = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy")

    /// HAProxy running `deploy/haproxy-postgres.cfg` in front of `sockets` (each a PostgreSQL's
    /// socket directory), on a port of 127.0.0.1.
    final class PostgresBalancer {
        let port: Int
        let process: ChildProcess

        init(sockets: [String], directory: TemporaryDirectory) throws {
            port = try LoopbackSocket.freePort()
            var lines: [String] = []
            for line in try String(contentsOf: FailoverTests.deploy.appendingPathComponent("haproxy-postgres.cfg"), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("    server ") { continue }
                if line == "    bind 127.0.0.1:6543" {
                    lines.append("    bind 127.0.0.1:\(port)")
                } else if line.hasPrefix("    external-check command ") {
                    lines.append("    external-check command \(FailoverTests.deploy.appendingPathComponent("postgres-primary-check").path)")
                } else {
                    lines.append(String(line))
                }
            }
            #expect(lines.contains("    bind 127.0.0.1:\(port)"), "deploy/haproxy-postgres.cfg binds 127.0.0.1:6543 no more: update this test")
            for (index, socket) in sockets.enumerated() { lines.append("    server pg\(index) unix@\(socket)/.s.PGSQL.5432 check") }
            let file = directory.path("haproxy-postgres.cfg")
            try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            process = try ChildProcess("/bin/sh", ["-c", "exec /usr/sbin/haproxy -db -f \"$1\" >>\"$2\" 2>&1", "sh", file, directory.path("haproxy-postgres.log")])
        }

        deinit {
            process.signal(SIGTERM)
            process.wait()
        }
    }

    /// What a push load counts, shared by its clients' threads.
    final class Counts: Sendable {
        let acknowledged = Mutex<Set<Int>>([])
        let failed = Atomic<Int>(0)
        let sent = Atomic<Int>(0)
        let third = DispatchSemaphore(value: 0)
        /// When the primary was killed, and when the first push sent after it was acknowledged.
        let killed = Mutex<ContinuousClock.Instant?>(nil), firstAfter = Mutex<ContinuousClock.Instant?>(nil)
    }

    @Test func aPrimaryKilledUnderAPushLoadLosesNothingAcknowledged() throws {
        let directory = try TemporaryDirectory()
        let primary = try TestPostgres.dedicated()
        let standby = try TestStandby(of: primary)
        // Commits wait for the standby: what the primary acknowledged, the standby has.
        _ = try primary.execute("ALTER SYSTEM SET synchronous_standby_names = '*'")
        _ = try primary.execute("SELECT pg_reload_conf()")
        #expect(Deadline.poll(every: .milliseconds(20)) { (try? primary.execute("SELECT sync_state FROM pg_stat_replication")) == "sync" }, "the standby never became synchronous")
        _ = try primary.execute("CREATE DATABASE favorites")
        let balancer = try PostgresBalancer(sockets: [primary.socketDirectory, standby.socketDirectory], directory: directory)
        let url = "postgres://archive@127.0.0.1:\(balancer.port)/favorites?sslmode=disable"
        func admin(_ arguments: [String]) throws -> String {
            let result = try ChildProcess.run(
                ServiceProcess.executable.path, arguments + ["--postgres", url], environment: ServiceProcess.environment(directory), timeout: .seconds(60))
            guard result.status == 0 else { throw ServiceFailed(stderr: result.stderr) }
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // The balancer checks its servers first; the admin command waits for it (`users list`,
        // which writes nothing, so that a try that failed late leaves no user behind).
        var lastRefusal = ""
        let reached = Deadline.poll(every: .milliseconds(50)) {
            do {
                _ = try admin(["users", "list"])
                return true
            } catch {
                lastRefusal = "\(error)"
                return false
            }
        }
        let log = (try? String(contentsOfFile: directory.path("haproxy-postgres.log"), encoding: .utf8)) ?? ""
        try #require(reached, "the primary never answered through the balancer: \(lastRefusal)\n\(log)")
        _ = try admin(["users", "add", "alice"])
        let server = try ServiceProcess(.postgres, database: url, directory: directory)
        let clients = 6, pushes = 40
        let tokens = try (0..<clients).map { try admin(["devices", "add", "alice", "c\($0)"]) }
        let counts = Counts(), group = DispatchGroup(), serverURL = server.url
        for client in 0..<clients {
            DispatchQueue.global().async(group: group) {
                let device = Changes.device(UInt8(0x10 + client)), token = tokens[client]
                for index in 1...pushes {
                    let id = client * 10_000 + index
                    // The client retries a refused or lost push, as `archive sync` is run again.
                    let started = ContinuousClock.now
                    let done = Deadline.poll(every: .milliseconds(50), within: .seconds(60)) {
                        let answer = try? ServiceProcess.push(
                            serverURL, [Changes.stored(id, at: 1_700_000_000_000 + Int64(index), by: device)], device: device, token: token)
                        return answer?.status == 200
                    }
                    if done {
                        counts.acknowledged.withLock { _ = $0.insert(id) }
                        // Sent after the kill: it could only be acknowledged by the new primary.
                        if let killed = counts.killed.withLock({ $0 }), killed < started {
                            let now = ContinuousClock.now
                            counts.firstAfter.withLock { $0 = min($0 ?? now, now) }
                        }
                    } else {
                        counts.failed.add(1, ordering: .relaxed)
                    }
                    if counts.sent.add(1, ordering: .relaxed).newValue == clients * pushes / 3 { counts.third.signal() }
                }
            }
        }
        counts.third.wait()
        try primary.kill()
        counts.killed.withLock { $0 = .now }
        try standby.promote()
        group.wait()
        // Reported, not asserted (a busy machine takes longer): the time without a primary.
        if let killed = counts.killed.withLock({ $0 }), let first = counts.firstAfter.withLock({ $0 }) {
            print("FailoverTests: the first push sent after the primary's kill was acknowledged \(first - killed) after the kill")
        }
        #expect(counts.failed.load(ordering: .relaxed) == 0, "pushes never acknowledged within a minute of retries")
        let acknowledged = counts.acknowledged.withLock { $0 }
        #expect(acknowledged.count == clients * pushes)
        // Everything acknowledged is on the new primary, read there directly.
        let stored = Set(try standby.execute("SELECT f.id FROM user_favorites f JOIN users u ON u.id = f.user_id WHERE u.name = 'alice' AND NOT f.removed", database: "favorites")
            .split(separator: "\n").compactMap { Int($0) })
        #expect(acknowledged.isSubset(of: stored), "acknowledged but lost in the failover: \(acknowledged.subtracting(stored).sorted())")
        #expect(try standby.execute("SELECT pg_is_in_recovery()") == "f")
        // Two devices that sync through the same server afterwards end with the same
        // favorites, every acknowledged one among them.
        var held: [Set<Int>] = []
        for label in ["phone", "laptop"] {
            let token = try admin(["devices", "add", "alice", label])
            let database = directory.path("\(label).sqlite3")
            let synced = try ServiceProcess.archive(
                ["sync", "--server", server.url, "--token-stdin"], database: database, in: directory, input: .pipe(Data((token + "\n").utf8)))
            #expect(synced.status == 0, "\(synced.stderr)")
            let favorites = try ServiceProcess.archive(["favorites", "--json", "--limit", "1000"], database: database, in: directory)
            let rows = (try favorites.json() as? [String: Any])?["favorites"] as? [[String: Any]] ?? []
            held.append(Set(rows.compactMap { $0["id"] as? Int }))
        }
        #expect(held.count == 2 && held[0] == held[1] && acknowledged.isSubset(of: held[0]), "the devices differ or lack acknowledged pushes")
    }
}
