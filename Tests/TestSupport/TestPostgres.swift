import Foundation
import Synchronization

/// A throwaway PostgreSQL server of the test process's own: `initdb` into a directory of
/// the temporary directory (`/tmp` under root), listening only on a Unix socket there (no TCP port), `fsync`
/// off. Its databases collate by ICU's `en-US` (encoding UTF-8, C.UTF-8 for the system's
/// locale), as a server set up for people's texts would, not in byte order: the service's
/// own byte-order comparisons must hold there (MergeDifferentialTests). Started on first use, one per test process; each test takes a database of its own
/// (``newDatabase()``).
///
/// PostgreSQL refuses to run as root: under root (CI) the server runs as the `postgres`
/// user that Debian's package creates (`setpriv`, which execs: no process in between).
/// It stops, and its directory goes, when the test process exits (an `atexit` handler),
/// or, should the process be killed, within half a second (the wrapper watches it).
///
/// A test that stops and starts PostgreSQL under the service takes a server of its own
/// (``dedicated()``, ``stop()``, ``start()``), stopped when it is released.
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

        /// Unavailable, for `description`.
        public init(description: String) {
            self.description = description
        }
    }

    private static let shared = Mutex<Result<TestPostgres, Unavailable>?>(nil)

    /// The test process's server, started on first use.
    public static func server() throws -> TestPostgres {
        try shared.withLock { started in
            if started == nil { started = Result { () throws(Unavailable) in try TestPostgres() } }
            return try started!.get()
        }
    }

    /// A server of the caller's own, stopped (and its directory removed) when it is released.
    public static func dedicated() throws -> TestPostgres {
        try TestPostgres()
    }

    deinit {
        let child = Self.wrappers.withLock { $0.removeValue(forKey: socketDirectory) }
        child?.signal(SIGTERM)
        _ = child?.wait(orKillAfter: .seconds(30))
    }

    /// Stops the server as its operator would (a fast shutdown: connections are ended, open
    /// transactions rolled back), keeping its data; returns once it has exited.
    public func stop() throws {
        try signalWrapper(SIGUSR1, expecting: "stopped")
    }

    /// Starts the stopped server again on the same data; returns once it answers.
    public func start() throws {
        try signalWrapper(SIGUSR2, expecting: "ready")
    }

    private func signalWrapper(_ signal: Int32, expecting answer: String) throws {
        try Self.wrappers.withLock { wrappers in
            guard let wrapper = wrappers[socketDirectory] else { throw Unavailable(description: "the server at \(socketDirectory) is gone") }
            wrapper.signal(signal)
            let line = wrapper.nextLine()
            guard line == answer else { throw Unavailable(description: "PostgreSQL did not say \(answer) (said \(line ?? "nothing")): \(wrapper.kill().stderr)") }
        }
    }

    /// Adds the role `user` with `password`, and a database of its own named as it, which it
    /// reaches only with that password (a `scram-sha-256` line first in `pg_hba.conf`, every
    /// other role trusted as before); returns that database's URL, without the password.
    /// Use it on a server of the test's own (``dedicated()``).
    public func addPasswordUser(_ user: String, password: String) throws -> String {
        for sql in ["CREATE ROLE \(user) LOGIN PASSWORD '\(password)'", "CREATE DATABASE \(user) OWNER \(user)"] {
            let result = try ChildProcess.run(
                binaries + "/psql", ["-X", "-q", "-h", socketDirectory, "-U", "archive", "-d", "postgres", "-c", sql], timeout: .seconds(60))
            guard result.status == 0 else { throw Unavailable(description: "\(sql) failed: \(result.stderr)") }
        }
        let hba = socketDirectory + "/data/pg_hba.conf"
        guard let rules = FileManager.default.contents(atPath: hba), let handle = FileHandle(forWritingAtPath: hba) else {
            throw Unavailable(description: "cannot read and write \(hba)")
        }
        // Written in place: the file keeps its owner (the server's user).
        try handle.write(contentsOf: Data("local all \(user) scram-sha-256\n".utf8) + rules)
        try handle.close()
        let reload = try ChildProcess.run(
            binaries + "/psql", ["-X", "-q", "-h", socketDirectory, "-U", "archive", "-d", "postgres", "-c", "SELECT pg_reload_conf()"], timeout: .seconds(60))
        guard reload.status == 0 else { throw Unavailable(description: "pg_reload_conf failed: \(reload.stderr)") }
        // The reload is the server's to do: until a connection without the password is refused.
        let loaded = Deadline.poll(every: .milliseconds(20)) {
            let attempt = try? ChildProcess.run(
                binaries + "/psql", ["-X", "-q", "-w", "-h", socketDirectory, "-U", user, "-d", user, "-c", "SELECT 1"], environment: [:], timeout: .seconds(60))
            return attempt.map { $0.status != 0 } ?? false
        }
        guard loaded else { throw Unavailable(description: "the server did not start asking \(user) for a password") }
        return "postgres://\(user)@/\(user)?host=\(socketDirectory)"
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

    /// The first column of the rows `sql` returns in database `database`, one line each.
    public func execute(_ sql: String, database: String = "postgres") throws -> String {
        let result = try ChildProcess.run(
            binaries + "/psql", ["-X", "-A", "-t", "-q", "-h", socketDirectory, "-U", "archive", "-d", database, "-c", sql], timeout: .seconds(60))
        guard result.status == 0 else { throw Unavailable(description: "\(sql) failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Ends the server at once, as a machine that fails does: SIGKILL to the postmaster and
    /// every process of it (backends, the WAL writer, the WAL sender streaming to a standby),
    /// so that nothing more leaves it. Use it on a server of the test's own (``dedicated()``).
    public func kill() throws {
        guard let text = try? String(contentsOfFile: socketDirectory + "/data/postmaster.pid", encoding: .utf8),
              let pid = text.split(separator: "\n").first.flatMap({ Int32($0) })
        else { throw Unavailable(description: "no postmaster.pid in \(socketDirectory)/data") }
        // Stopped first, so that none of its processes acts while the others are killed.
        _ = Glibc.kill(pid, SIGSTOP)
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> Int32? in
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
        for child in children { _ = Glibc.kill(child, SIGSTOP) }
        for child in children { _ = Glibc.kill(child, SIGKILL) }
        guard Glibc.kill(pid, SIGKILL) == 0 else { throw Unavailable(description: "cannot kill PostgreSQL (pid \(pid)): \(String(cString: strerror(errno)))") }
    }

    /// The command prefix that runs a PostgreSQL program as the `postgres` user when the tests
    /// run as root (PostgreSQL refuses root), giving it `directory` first; empty otherwise.
    static func runAsPostgres(owning directory: String?) throws -> [String] {
        guard geteuid() == 0 else { return [] }
        guard let user = getpwnam("postgres") else {
            throw Unavailable(description: "the tests run as root, and PostgreSQL refuses to: no user postgres to run it as (apt-get install postgresql creates one)")
        }
        if let directory { _ = chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) }
        return ["/usr/bin/setpriv", "--reuid=\(user.pointee.pw_uid)", "--regid=\(user.pointee.pw_gid)", "--clear-groups", "--"]
    }

    /// Writes a `pg_dump` (custom format) of the database of `url` to `file`: an operator's backup.
    public func dump(_ url: String, to file: String) throws {
        let result = try ChildProcess.run(
            binaries + "/pg_dump", ["-Fc", "-h", socketDirectory, "-U", "archive", "-d", try Self.name(of: url), "-f", file], timeout: .seconds(120))
        guard result.status == 0 else { throw Unavailable(description: "pg_dump of \(url) failed: \(result.stderr)") }
    }

    /// Restores the dump `file` into a new database, and returns its URL.
    public func restore(_ file: String) throws -> String {
        let url = try newDatabase()
        let result = try ChildProcess.run(
            binaries + "/pg_restore", ["-h", socketDirectory, "-U", "archive", "-d", try Self.name(of: url), "--no-owner", file], timeout: .seconds(120))
        guard result.status == 0 else { throw Unavailable(description: "pg_restore of \(file) failed: \(result.stderr)") }
        return url
    }

    private static func name(of url: String) throws -> String {
        guard let start = url.range(of: "@/"), let end = url.range(of: "?") else { throw Unavailable(description: "not a test database: \(url)") }
        return String(url[start.upperBound..<end.lowerBound])
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
            let runAs = try Self.runAsPostgres(owning: root)
            let initdb = try ChildProcess.run(
                (runAs.first ?? binaries + "/initdb"),
                Array(runAs.dropFirst()) + (runAs.isEmpty ? [] : [binaries + "/initdb"])
                    + ["-D", root + "/data", "-U", "archive", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--locale-provider=icu", "--icu-locale=en-US", "--no-sync"],
                timeout: .seconds(120))
            guard initdb.status == 0 else { throw Unavailable(description: "initdb failed: \(initdb.stderr)") }
            // The wrapper: starts the server, says "ready" once it answers, and stops it (and
            // removes the directory) on SIGTERM or once this process is gone. SIGUSR1 stops
            // the server alone (says "stopped"), SIGUSR2 starts it again (says "ready").
            let script = """
                bin=$1; root=$2; watched=$3
                server=; nap=
                launch() {
                    "$bin/postgres" -D "$root/data" -k "$root" -c listen_addresses= -c fsync=off -c full_page_writes=off \
                        -c max_connections=300 >>"$root/server.log" 2>&1 &
                    server=$!
                    until "$bin/pg_isready" -q -h "$root" -U archive; do
                        kill -0 $server 2>/dev/null || { cat "$root/server.log" >&2; rm -rf "$root"; exit 1; }
                        sleep 0.05
                    done
                    echo ready
                }
                halt() { [ -n "$server" ] && { kill -INT $server 2>/dev/null; wait $server; }; server=; }
                stop() { kill $nap 2>/dev/null; halt; rm -rf "$root"; exit 0; }
                trap stop TERM INT
                trap 'halt; echo stopped' USR1
                trap 'kill $nap 2>/dev/null; [ -z "$server" ] && launch' USR2
                launch
                while [ -d /proc/$watched ]; do sleep 0.5 & nap=$!; wait $nap; done
                stop
                """
            let arguments = Array(runAs.dropFirst()) + ["/bin/sh", "-c", script, "sh", binaries, root, "\(getpid())"]
            try Self.wrappers.withLock { wrappers in
                let child = try ChildProcess(runAs.first ?? "/bin/sh", arguments, streamingStdout: true)
                guard child.nextLine() == "ready" else {
                    throw Unavailable(description: "PostgreSQL did not start: \(child.kill().stderr)")
                }
                wrappers[root] = child
            }
            _ = Self.stopAtExit
        } catch let error as Unavailable {
            try? FileManager.default.removeItem(atPath: root)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: root)
            throw Unavailable(description: "could not start PostgreSQL: \(error)")
        }
    }

    /// The wrappers of the started servers, by socket directory; stopped at exit.
    private static let wrappers = Mutex<[String: ChildProcess]>([:])

    /// Registers, once, the `atexit` handler that stops every server still running.
    private static let stopAtExit: Void = {
        atexit {
            // The servers stop with the tests: SIGTERM to each wrapper, which stops its server
            // and removes its directory; the wrapper's own files go with it (deinit).
            let children = TestPostgres.wrappers.withLock { wrappers in
                let children = Array(wrappers.values)
                wrappers = [:]
                return children
            }
            for child in children { child.signal(SIGTERM) }
            for child in children { _ = child.wait(orKillAfter: .seconds(30)) }
        }
    }()

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
