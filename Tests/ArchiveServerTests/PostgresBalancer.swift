import Foundation
import TestSupport

/// `deploy/haproxy-postgres.cfg` run by Debian's HAProxy (``TestHAProxy``; its check command
/// pointed at `deploy/postgres-primary-check`) in front of PostgreSQL servers given by their
/// socket directories, on a port of 127.0.0.1: every connection goes to the one that takes
/// writes.
final class PostgresBalancer {
    private let haproxy: TestHAProxy

    /// The port it listens on.
    var port: Int { haproxy.port }

    init(sockets: [String], directory: TemporaryDirectory) throws {
        let check = TestHAProxy.deploy.appendingPathComponent("postgres-primary-check").path
        haproxy = try TestHAProxy(
            "haproxy-postgres.cfg", bind: "bind 127.0.0.1:6543",
            servers: sockets.enumerated().map { "server pg\($0.offset) unix@\($0.element)/.s.PGSQL.5432 check" }, directory: directory
        ) { line in
            line.hasPrefix("    external-check command ") ? "    external-check command \(check)" : nil
        }
    }

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
        guard reached else { throw ServiceFailed(stderr: "the primary never answered through the balancer: \(lastRefusal)\n\(haproxy.logText)") }
    }
}
