import Foundation
import TestSupport
import Testing

/// Debian's HAProxy running `deploy/haproxy.cfg`, the balancer OPERATIONS.md ships, as written
/// but for its bind and server lines, pointed at the test's port and servers; its log in the
/// test's directory. Up once it answers `/health` through a server it has checked.
final class HTTPBalancer {
    static let configuration = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/haproxy.cfg")

    let url: String
    let process: ChildProcess

    init(servers: [BalancedServer], directory: TemporaryDirectory) throws {
        let port = try LoopbackSocket.freePort()
        var lines: [String] = []
        for line in try String(contentsOf: Self.configuration, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("    server ") { continue }
            lines.append(line == "    bind :8080" ? "    bind 127.0.0.1:\(port)" : String(line))
        }
        #expect(lines.contains("    bind 127.0.0.1:\(port)"), "deploy/haproxy.cfg binds :8080 no more: update this test")
        for (index, server) in servers.enumerated() { lines.append("    server s\(index) 127.0.0.1:\(server.port) check") }
        let file = directory.path("haproxy.cfg")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        process = try ChildProcess("/bin/sh", ["-c", "exec /usr/sbin/haproxy -db -f \"$1\" >>\"$2\" 2>&1", "sh", file, directory.path("haproxy.log")])
        url = "http://127.0.0.1:\(port)"
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
