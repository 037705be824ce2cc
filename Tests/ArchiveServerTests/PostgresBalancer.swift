import Foundation
import TestSupport
import Testing

/// Debian's HAProxy running `deploy/haproxy-postgres.cfg` as written (its bind, server and
/// check command lines pointed at the test's) in front of PostgreSQL servers given by their
/// socket directories, on a port of 127.0.0.1: every connection goes to the one that takes
/// writes, as `deploy/postgres-primary-check` finds it.
final class PostgresBalancer {
    static let deploy = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy")

    let port: Int
    let process: ChildProcess
    private let log: String

    init(sockets: [String], directory: TemporaryDirectory) throws {
        port = try LoopbackSocket.freePort()
        var lines: [String] = []
        for line in try String(contentsOf: Self.deploy.appendingPathComponent("haproxy-postgres.cfg"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("    server ") { continue }
            if line == "    bind 127.0.0.1:6543" {
                lines.append("    bind 127.0.0.1:\(port)")
            } else if line.hasPrefix("    external-check command ") {
                lines.append("    external-check command \(Self.deploy.appendingPathComponent("postgres-primary-check").path)")
            } else {
                lines.append(String(line))
            }
        }
        #expect(lines.contains("    bind 127.0.0.1:\(port)"), "deploy/haproxy-postgres.cfg binds 127.0.0.1:6543 no more: update this test")
        for (index, socket) in sockets.enumerated() { lines.append("    server pg\(index) unix@\(socket)/.s.PGSQL.5432 check") }
        let file = directory.path("haproxy-postgres.cfg")
        log = directory.path("haproxy-postgres.log")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        process = try ChildProcess("/bin/sh", ["-c", "exec /usr/sbin/haproxy -db -f \"$1\" >>\"$2\" 2>&1", "sh", file, log])
    }

    /// What HAProxy wrote so far (its checks' failures among it).
    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Returns once `command` succeeds through it (HAProxy checks its servers first), or
    /// throws its last failure, with HAProxy's log, if it never does.
    func waitUntilReachable(by command: () throws -> Void) throws {
        var lastRefusal = ""
        let reached = Deadline.poll(every: .milliseconds(50)) {
            do {
                try command()
                return true
            } catch {
                lastRefusal = "\(error)"
                return false
            }
        }
        guard reached else { throw ServiceFailed(stderr: "the primary never answered through the balancer: \(lastRefusal)\n\(logText)") }
    }

    deinit {
        process.signal(SIGTERM)
        process.wait()
    }
}
