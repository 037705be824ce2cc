import Foundation
import TestSupport
import Testing

/// `deploy/archive-server.service`, the systemd unit `scripts/install.sh --service`
/// installs: `systemd-analyze verify` finds nothing to say about it (an unknown key, a
/// missing binary, a bad sandboxing option), and its command line starts the real server.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServiceUnitTests {
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../deploy/archive-server.service").standardized

    /// The unit with its ExecStart on the built binary (as the install script writes it).
    func installedUnit(in directory: TemporaryDirectory) throws -> (path: String, text: String) {
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/archive-server", with: ServiceProcess.executable.path)
        let path = directory.path("archive-server.service")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, text)
    }

    @Test func systemdAnalyzeVerifiesTheUnitWithoutAWord() throws {
        let analyze = try Prerequisite.path(of: "systemd-analyze", debianPackage: "systemd")
        let directory = try TemporaryDirectory()
        let (path, text) = try installedUnit(in: directory)
        let verified = try ChildProcess.run(analyze, ["verify", path], timeout: Deadline.standard)
        #expect(verified.status == 0 && verified.stdout.isEmpty && verified.stderr.isEmpty, "\(verified.stdout)\(verified.stderr)")
        // The check can fail: a misspelt key is reported.
        try text.replacingOccurrences(of: "Restart=on-failure", with: "Restartt=on-failure").write(toFile: path, atomically: true, encoding: .utf8)
        let misspelt = try ChildProcess.run(analyze, ["verify", path], timeout: Deadline.standard)
        #expect(misspelt.stderr.contains("Unknown key 'Restartt'"), "\(misspelt.stderr)")
    }

    /// The unit's command line starts the real server, which tells systemd it is ready the
    /// way its `Type=notify` expects: `READY=1` on `NOTIFY_SOCKET` once it listens (so
    /// `/health` answers at once), after its signals are trapped (a SIGHUP sent the moment
    /// it is ready reloads, it does not kill: systemd holds `systemctl reload` until then),
    /// and `STOPPING=1` as SIGTERM stops it. Seen red with `READY=1` sent as `serve` starts.
    @Test func theUnitsCommandLineStartsTheServerAndSaysWhenItIsReady() throws {
        let directory = try TemporaryDirectory()
        let (_, text) = try installedUnit(in: directory)
        #expect(text.contains("\nType=notify\n"), "the unit waits for READY=1")
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=/") })
        // systemd's ${STATE_DIRECTORY}, and a free port for the test.
        let arguments = line.dropFirst("ExecStart=".count)
            .replacingOccurrences(of: "${STATE_DIRECTORY}", with: directory.url.path)
            .replacingOccurrences(of: "--port 8080", with: "--port 0")
            .split(separator: " ").map(String.init)
        let notify = try NotifySocket(path: directory.path("notify"))
        var environment = ServiceProcess.environment(directory)
        environment["NOTIFY_SOCKET"] = notify.path
        let server = try ChildProcess(arguments[0], Array(arguments.dropFirst()), environment: environment, streamingStdout: true)
        let ready = try #require(notify.next(), "no READY=1 from the server")
        #expect(ready.hasPrefix("READY=1\n") && ready.contains("STATUS=serving on http://127.0.0.1:"), "\(ready.debugDescription)")
        let url = try #require(ready.split(separator: "\n").first { $0.hasPrefix("STATUS=serving on ") }?.dropFirst("STATUS=serving on ".count))
        // Ready means listening, and signals answered by the server.
        #expect(try RawHTTPConnection(url: String(url)).request("/health").status == 200)
        server.signal(SIGHUP)
        #expect(try RawHTTPConnection(url: String(url)).request("/health").status == 200, "the server did not outlive a SIGHUP")
        #expect(server.nextLine() == String(url), "the URL on stdout as well")
        server.signal(SIGTERM)
        let stopping = notify.next()
        #expect(stopping?.hasPrefix("STOPPING=1\n") == true, "\(stopping.debugDescription)")
        let ended = server.wait()
        #expect(ended.status == 0, "\(ended.stderr.suffix(2_000))")
        #expect(ended.stderr.contains("SIGHUP: nothing to reload"), "\(ended.stderr.suffix(2_000))")
        #expect(FileManager.default.fileExists(atPath: directory.path("server.sqlite3")))
    }

    /// The unit's own system-call filter and address families (`SystemCallFilter=`,
    /// `RestrictAddressFamilies=`, expanded by `systemd-analyze syscall-filter` and applied
    /// with seccomp by `Tests/Sandbox/unit_sandbox.py`, as systemd applies them) and an
    /// unprivileged user, as `DynamicUser=` gives: the server starts, serves `/health` and a
    /// sync, and makes a backup. Before, `@resources` was denied whole, and the Swift
    /// runtime's `setpriority` as the server starts got it killed (SIGSYS, status 159):
    /// the unit as it was is run too, and must be killed so.
    @Test func theServiceRunsUnderTheUnitsOwnSandbox() throws {
        let python = "/usr/bin/python3"
        let probe = try ChildProcess.run(python, ["-c", "import seccomp"], timeout: Deadline.standard)
        try #require(probe.status == 0, "python3-seccomp (Debian's package, for /usr/bin/python3) is needed: \(probe.stderr)")
        let helper = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Sandbox/unit_sandbox.py").standardized.path
        let directory = try TemporaryDirectory()
        let (unit, text) = try installedUnit(in: directory)
        let nobody: UInt32 = 65_534
        // The state directory where that user can reach it: SQLite opens a database by its
        // absolute path, and the test's temporary directory may sit in one only root can
        // enter (CI's is a `mktemp -d` of mode 700). /tmp is open to every user; removed below.
        var template = Array("/tmp/favorite-archive-unit-XXXXXX".utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let path = mkdtemp(base) else { return nil }
            return String(cString: path)
        }
        let state = try #require(made, "mkdtemp in /tmp: \(String(cString: strerror(errno)))")
        defer { try? FileManager.default.removeItem(atPath: state) }
        #expect(chmod(state, 0o700) == 0 && chown(state, nobody, nobody) == 0)
        let sandbox = [python, helper, unit, String(nobody), state, "--"]
        func admin(_ arguments: [String]) throws -> ChildProcess.Result {
            try ChildProcess.run(
                python, Array(sandbox.dropFirst()) + [ServiceProcess.executable.path] + arguments + ["--database", "server.sqlite3"],
                environment: ServiceProcess.environment(directory), timeout: .seconds(120))
        }
        let added = try admin(["users", "add", "alice"])
        try #require(added.status == 0, "users add under the unit's sandbox: exit \(added.status): \(added.stderr)")
        let token = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Its READY=1 reaches systemd's socket through the filter (AF_UNIX, sendto).
        let notify = try NotifySocket(path: state + "/notify")
        let server = try ServiceProcess(.sqlite, database: "server.sqlite3", directory: directory, launcher: sandbox, environment: ["NOTIFY_SOCKET": notify.path])
        #expect(notify.next()?.hasPrefix("READY=1\n") == true, "no READY=1 from the sandboxed server")
        #expect(try server.call("GET", "/health").status == 200)
        _ = try ServiceProcess.archive(["add", "21"], database: directory.path("phone.sqlite3"), in: directory)
        let synced = try ServiceProcess.archive(
            ["sync", "--server", server.url, "--token-stdin"], database: directory.path("phone.sqlite3"), in: directory, input: .pipe(Data((token + "\n").utf8)))
        #expect(synced.status == 0 && synced.stdout.contains("sent 1"), "\(synced.stdout)\(synced.stderr)")
        let backup = try admin(["backup", "backup.sqlite3"])
        #expect(backup.status == 0, "backup under the unit's sandbox: exit \(backup.status): \(backup.stderr)")
        let stopped = try #require(server.stop())
        #expect(stopped.status == 0, "\(stopped.stderr.suffix(2_000))")

        // The harness can fail: the unit as it was, with all of @resources denied.
        let before = directory.path("before.service")
        try text.replacingOccurrences(of: "SystemCallFilter=setpriority\n", with: "").write(toFile: before, atomically: true, encoding: .utf8)
        let killed = try ChildProcess.run(
            python, [helper, before, String(nobody), state, "--", ServiceProcess.executable.path, "--database", "server.sqlite3", "--port", "0"],
            environment: ServiceProcess.environment(directory), timeout: .seconds(120))
        #expect(killed.status == 128 + SIGSYS, "the unit as it was: exit \(killed.status): \(killed.stderr.suffix(500))")
    }
}
