import Foundation
import Synchronization

/// A streaming standby of a PostgreSQL of the test's own (``TestPostgres/dedicated()``), made
/// as an operator makes one: `pg_basebackup -R` from the primary (its `primary_conninfo` and
/// `standby.signal` written), started on a socket directory of its own; ``promote()`` is
/// `pg_ctl promote`, what Patroni does underneath when the primary is gone. Run as the
/// `postgres` user under root; it stops, and its directory goes, when it is released or the
/// test process exits.
public final class TestStandby: Sendable {
    /// The directory of its socket (port 5432).
    public let socketDirectory: String
    private let binaries: String
    private let wrapper: Mutex<ChildProcess?>

    /// A standby of `primary`, streaming from it, answering read-only queries once it runs.
    public init(of primary: TestPostgres) throws {
        binaries = primary.binaries
        let base = geteuid() == 0 ? "/tmp" : FileManager.default.temporaryDirectory.path
        let root = base + "/pg-standby-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        socketDirectory = root
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let runAs = try TestPostgres.runAsPostgres(owning: root)
        let backup = try ChildProcess.run(
            runAs.first ?? binaries + "/pg_basebackup",
            Array(runAs.dropFirst()) + (runAs.isEmpty ? [] : [binaries + "/pg_basebackup"])
                + ["-h", primary.socketDirectory, "-U", "archive", "-D", root + "/data", "-R", "-X", "stream", "--no-sync"],
            timeout: .seconds(120))
        guard backup.status == 0 else {
            try? FileManager.default.removeItem(atPath: root)
            throw TestPostgres.Unavailable(description: "pg_basebackup failed: \(backup.stderr)")
        }
        let script = WatchedServer.script(
            start: "\"$bin/postgres\" -D \"$root/data\" -k \"$root\" -c listen_addresses= -c fsync=off -c max_connections=300",
            ready: "\"$bin/pg_isready\" -q -h \"$root\" -U archive", log: "server.log")
        let arguments = Array(runAs.dropFirst()) + ["/bin/sh", "-c", script, "sh", binaries, root, "\(getpid())"]
        let child = try ChildProcess(runAs.first ?? "/bin/sh", arguments, streamingStdout: true)
        guard child.nextLine() == "ready" else {
            throw TestPostgres.Unavailable(description: "the standby did not start: \(child.kill().stderr)")
        }
        wrapper = Mutex(child)
    }

    deinit {
        let child = wrapper.withLock { child in defer { child = nil }; return child }
        child?.signal(SIGTERM)
        _ = child?.wait(orKillAfter: .seconds(30))
    }

    /// The first column of the rows `sql` returns in database `database`, one line each.
    public func execute(_ sql: String, database: String = "postgres") throws -> String {
        let result = try ChildProcess.run(
            binaries + "/psql", ["-X", "-A", "-t", "-q", "-h", socketDirectory, "-U", "archive", "-d", database, "-c", sql], timeout: .seconds(60))
        guard result.status == 0 else { throw TestPostgres.Unavailable(description: "\(sql) failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Makes it the primary (`pg_ctl promote`), and returns once it takes writes.
    public func promote() throws {
        let runAs = try TestPostgres.runAsPostgres(owning: nil)
        let promoted = try ChildProcess.run(
            runAs.first ?? binaries + "/pg_ctl",
            Array(runAs.dropFirst()) + (runAs.isEmpty ? [] : [binaries + "/pg_ctl"]) + ["promote", "-w", "-D", socketDirectory + "/data"],
            timeout: .seconds(120))
        guard promoted.status == 0 else { throw TestPostgres.Unavailable(description: "pg_ctl promote failed: \(promoted.stderr)") }
    }
}
