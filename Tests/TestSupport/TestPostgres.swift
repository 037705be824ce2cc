import Foundation
import Synchronization

/// A throwaway PostgreSQL server of the test process's own: `initdb` into a directory of
/// the temporary directory (`/tmp` under root), listening only on a Unix socket there (no TCP port), `fsync`
/// off. Started on first use, one per test process; each test takes a database of its own
/// (``newDatabase()``).
///
/// PostgreSQL refuses to run as root: under root (CI) the server runs as the `postgres`
/// user that Debian's package creates (`setpriv`, which execs: no process in between).
/// It stops, and its directory goes, when the test process exits (an `atexit` handler),
/// or, should the process be killed, within half a second (the wrapper watches it).
///
/// A missing PostgreSQL is an error, never a skip: `.ci/run` installs it, and README says so.
public final class TestPostgres: Sendable {
    /// The directory of the server's socket.
    public let socketDirectory: String
    let binaries: String
    private let databases = Atomic<Int>(0)

    /// PostgreSQL is not installed, or would not start.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    private static let shared = Mutex<Result<TestPostgres, Unavailable>?>(nil)

    /// The test process's server, started on first use.
    public static func server() throws -> TestPostgres {
        try shared.withLock { started in
            if started == nil { started = Result { () throws(Unavailable) in try TestPostgres() } }
            return try started!.get()
        }
    }

    /// A new, empty database on the server, as the URL `archive-server --postgres` takes.
    public func newDatabase() throws -> String {
        let name = "t\(databases.add(1, ordering: .relaxed).newValue)"
        let result = try ChildProcess.run(
            binaries + "/psql", ["-X", "-q", "-h", socketDirectory, "-U", "archive", "-d", "postgres", "-c", "CREATE DATABASE \(name)"],
            timeout: .seconds(60))
        guard result.status == 0 else { throw Unavailable(description: "CREATE DATABASE \(name) failed: \(result.stderr)") }
        return "postgres://archive@/\(name)?host=\(socketDirectory)"
    }

    /// The first column of the rows `sql` returns in the database of `url` (one of
    /// ``newDatabase()``'s), one line each.
    public func query(_ sql: String, in url: String) throws -> String {
        guard let start = url.range(of: "@/"), let end = url.range(of: "?") else { throw Unavailable(description: "not a test database: \(url)") }
        let name = String(url[start.upperBound..<end.lowerBound])
        let result = try ChildProcess.run(
            binaries + "/psql", ["-X", "-A", "-t", "-q", "-h", socketDirectory, "-U", "archive", "-d", name, "-c", sql], timeout: .seconds(60))
        guard result.status == 0 else { throw Unavailable(description: "\(sql) failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private init() throws(Unavailable) {
        guard let binaries = Self.findBinaries() else {
            throw Unavailable(description: """
                PostgreSQL's server is not installed (initdb, postgres, pg_isready, psql): the tests of the \
                --postgres backend need it. Debian: apt-get install postgresql (.ci/run installs it); \
                or point ARCHIVE_TEST_POSTGRES_BIN at its bin directory.
                """)
        }
        self.binaries = binaries
        // Under root the server runs as `postgres`, which must reach its directory: the
        // system's /tmp, not a TMPDIR that may sit in a directory only root can enter
        // (CI's is mode 700). The wrapper removes it either way.
        let base = geteuid() == 0 ? "/tmp" : FileManager.default.temporaryDirectory.path
        let root = base + "/pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        socketDirectory = root
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            var runAs: [String] = []
            if geteuid() == 0 {
                guard let user = getpwnam("postgres") else {
                    throw Unavailable(description: "the tests run as root, and PostgreSQL refuses to: no user postgres to run it as (apt-get install postgresql creates one)")
                }
                _ = chown(root, user.pointee.pw_uid, user.pointee.pw_gid)
                runAs = ["/usr/bin/setpriv", "--reuid=\(user.pointee.pw_uid)", "--regid=\(user.pointee.pw_gid)", "--clear-groups", "--"]
            }
            let initdb = try ChildProcess.run(
                (runAs.first ?? binaries + "/initdb"),
                Array(runAs.dropFirst()) + (runAs.isEmpty ? [] : [binaries + "/initdb"])
                    + ["-D", root + "/data", "-U", "archive", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
                timeout: .seconds(120))
            guard initdb.status == 0 else { throw Unavailable(description: "initdb failed: \(initdb.stderr)") }
            // The wrapper: starts the server, says "ready" once it answers, and stops it (and
            // removes the directory) on SIGTERM or once this process is gone.
            let script = """
                bin=$1; root=$2; watched=$3
                "$bin/postgres" -D "$root/data" -k "$root" -c listen_addresses= -c fsync=off -c full_page_writes=off \
                    -c max_connections=300 >"$root/server.log" 2>&1 &
                server=$!
                nap=
                stop() { kill $nap 2>/dev/null; kill -INT $server 2>/dev/null; wait $server; rm -rf "$root"; exit 0; }
                trap stop TERM INT
                until "$bin/pg_isready" -q -h "$root" -U archive; do
                    kill -0 $server 2>/dev/null || { cat "$root/server.log" >&2; rm -rf "$root"; exit 1; }
                    sleep 0.05
                done
                echo ready
                while [ -d /proc/$watched ]; do sleep 0.5 & nap=$!; wait $nap; done
                stop
                """
            let arguments = Array(runAs.dropFirst()) + ["/bin/sh", "-c", script, "sh", binaries, root, "\(getpid())"]
            try Self.wrapper.withLock { wrapper in
                let child = try ChildProcess(runAs.first ?? "/bin/sh", arguments, streamingStdout: true)
                guard child.nextLine() == "ready" else {
                    throw Unavailable(description: "PostgreSQL did not start: \(child.kill().stderr)")
                }
                wrapper = child
            }
            atexit {
                // The server stops with the tests: SIGTERM to the wrapper, which stops it and
                // removes its directory; the wrapper's own files go with it (deinit).
                let child = TestPostgres.wrapper.withLock { wrapper in
                    let child = wrapper
                    wrapper = nil
                    return child
                }
                child?.signal(SIGTERM)
                _ = child?.wait(orKillAfter: .seconds(30))
            }
        } catch let error as Unavailable {
            try? FileManager.default.removeItem(atPath: root)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: root)
            throw Unavailable(description: "could not start PostgreSQL: \(error)")
        }
    }

    /// The wrapper of the started server, stopped at exit.
    private static let wrapper = Mutex<ChildProcess?>(nil)

    /// `ARCHIVE_TEST_POSTGRES_BIN`, else the newest of Debian's `/usr/lib/postgresql/*/bin`,
    /// else the directory of `initdb` on the PATH.
    private static func findBinaries() -> String? {
        let manager = FileManager.default
        func complete(_ directory: String) -> Bool {
            ["initdb", "postgres", "pg_isready", "psql"].allSatisfy { manager.isExecutableFile(atPath: directory + "/" + $0) }
        }
        if let given = ProcessInfo.processInfo.environment["ARCHIVE_TEST_POSTGRES_BIN"] { return complete(given) ? given : nil }
        let versions = (try? manager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) where complete("/usr/lib/postgresql/\(version)/bin") {
            return "/usr/lib/postgresql/\(version)/bin"
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) where complete(directory) {
            return directory
        }
        return nil
    }
}
