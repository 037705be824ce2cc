import Foundation
import TestSupport
import Testing

/// Debian's HAProxy running one of `deploy/`'s configurations as written but for the lines a
/// test must point at its own processes: its `bind` line (`bind`, which must be in the file:
/// a test that finds it gone says so), lines `rewrite` replaces (`nil`: kept), and its
/// `server` lines, replaced by `servers`. Its log in the test's directory; stopped (SIGTERM)
/// when released.
final class TestHAProxy {
    static let deploy = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy")

    let port: Int
    let process: ChildProcess
    /// The log file's path.
    let log: String

    init(
        _ file: String, bind: String, servers: [String], directory: TemporaryDirectory, rewrite: (Substring) -> String? = { _ in nil }
    ) throws {
        port = try LoopbackSocket.freePort()
        var lines: [String] = []
        for line in try String(contentsOf: Self.deploy.appendingPathComponent(file), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("    server ") { continue }
            lines.append(line == "    \(bind)" ? "    bind 127.0.0.1:\(port)" : rewrite(line) ?? String(line))
        }
        #expect(lines.contains("    bind 127.0.0.1:\(port)"), "deploy/\(file) says `\(bind)` no more: update this test")
        lines += servers.map { "    " + $0 }
        let configuration = directory.path(file)
        log = directory.path(file + ".log")
        try (lines.joined(separator: "\n") + "\n").write(toFile: configuration, atomically: true, encoding: .utf8)
        process = try ChildProcess("/bin/sh", ["-c", "exec /usr/sbin/haproxy -db -f \"$1\" >>\"$2\" 2>&1", "sh", configuration, log])
    }

    /// What HAProxy wrote so far.
    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    deinit {
        process.signal(SIGTERM)
        process.wait()
    }
}
