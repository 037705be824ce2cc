import Foundation
import Synchronization

/// Debian's PgBouncer in transaction mode in front of the test process's PostgreSQL
/// (``TestPostgres/server()``), as a deployment puts it between several `archive-server`s and
/// PostgreSQL: each transaction (each statement outside one) may run on another server
/// connection, and a startup parameter PgBouncer does not know closes the connection.
/// Listening only on a Unix socket in a directory of its own (no TCP port), run as the
/// `postgres` user under root (PgBouncer refuses root); it stops, and its directory goes,
/// when the test process exits (a ``dedicated(inFrontOf:port:)`` one: when it is released),
/// or within half a second should the process be killed.
///
/// A missing PgBouncer is an error, never a skip: `.ci/run` installs it, and README says so.
public final class TestPgBouncer: Sendable {
    /// The directory of its socket (`.s.PGSQL.6432`).
    public let socketDirectory: String
    /// The port in its socket's name.
    public static let port = 6432

    private static let shared = Mutex<Result<TestPgBouncer, TestPostgres.Unavailable>?>(nil)
    private let wrapper = Mutex<ChildProcess?>(nil)

    /// The test process's PgBouncer, started on first use in front of its PostgreSQL.
    public static func server() throws -> TestPgBouncer {
        try shared.withLock { started in
            if started == nil {
                started = Result { () throws(TestPostgres.Unavailable) in try TestPgBouncer(host: try Self.postgres().socketDirectory, port: 5432) }
                _ = Self.stopAtExit
            }
            return try started!.get()
        }
    }

    /// A PgBouncer of the caller's own in front of the PostgreSQL at `host` (a socket
    /// directory or an address) and `port`, as user `archive` without a password; stopped,
    /// and its directory removed, when it is released.
    public static func dedicated(inFrontOf host: String, port: Int) throws -> TestPgBouncer {
        try TestPgBouncer(host: host, port: port)
    }

    deinit { stop() }

    /// Stops PgBouncer (SIGTERM to its wrapper, which removes its directory) if it still runs.
    private func stop() {
        guard let child = wrapper.withLock({ wrapper in defer { wrapper = nil }; return wrapper }) else { return }
        child.signal(SIGTERM)
        _ = child.wait(orKillAfter: .seconds(30))
    }

    private static func postgres() throws(TestPostgres.Unavailable) -> TestPostgres {
        do { return try TestPostgres.server() } catch let error as TestPostgres.Unavailable { throw error } catch {
            throw TestPostgres.Unavailable(description: "\(error)")
        }
    }

    /// A new, empty database on the PostgreSQL behind it, as the URL `archive-server
    /// --postgres` takes to reach it through PgBouncer.
    public func newDatabase() throws -> String {
        let direct = try TestPostgres.server().newDatabase()
        guard let host = direct.range(of: "?host=") else { throw TestPostgres.Unavailable(description: "not a test database: \(direct)") }
        return direct[..<host.lowerBound] + "?host=\(socketDirectory)&port=\(Self.port)"
    }

    private init(host: String, port: Int) throws(TestPostgres.Unavailable) {
        guard let binary = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestPostgres.Unavailable(description: "PgBouncer is not installed: the tests of the service behind a pooler need it. Debian: apt-get install pgbouncer (.ci/run installs it)")
        }
        let base = geteuid() == 0 ? "/tmp" : FileManager.default.temporaryDirectory.path
        let root = base + "/pgbouncer-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        socketDirectory = root
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let configuration = """
                [databases]
                * = host=\(host) port=\(port)
                [pgbouncer]
                listen_addr =
                listen_port = \(Self.port)
                unix_socket_dir = \(root)
                auth_type = trust
                auth_file = \(root)/users.txt
                pool_mode = transaction
                max_client_conn = 1000
                default_pool_size = 20
                server_login_retry = 1

                """
            try configuration.write(toFile: root + "/pgbouncer.ini", atomically: true, encoding: .utf8)
            try "\"archive\" \"\"\n".write(toFile: root + "/users.txt", atomically: true, encoding: .utf8)
            // As `postgres` under root (PgBouncer refuses root): its directory its own, its files readable.
            let runAs = try TestPostgres.runAsPostgres(owning: root)
            let script = WatchedServer.script(
                start: "\"$bin\" \"$root/pgbouncer.ini\"", ready: "[ -S \"$root/.s.PGSQL.\(Self.port)\" ]", log: "pgbouncer.log")
            let arguments = Array(runAs.dropFirst()) + ["/bin/sh", "-c", script, "sh", binary, root, "\(getpid())"]
            try wrapper.withLock { wrapper in
                let child = try ChildProcess(runAs.first ?? "/bin/sh", arguments, streamingStdout: true)
                guard child.nextLine() == "ready" else {
                    throw TestPostgres.Unavailable(description: "PgBouncer did not start: \(child.kill().stderr)")
                }
                wrapper = child
            }
        } catch let error as TestPostgres.Unavailable {
            try? FileManager.default.removeItem(atPath: root)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: root)
            throw TestPostgres.Unavailable(description: "could not start PgBouncer: \(error)")
        }
    }

    /// Registers, once, the `atexit` handler that stops the shared PgBouncer if it still runs
    /// (a static is never released).
    private static let stopAtExit: Void = {
        atexit {
            (try? TestPgBouncer.shared.withLock { try $0?.get() })?.stop()
        }
    }()
}
