import Foundation
import TestSupport

/// `deploy/haproxy.cfg`, the balancer OPERATIONS.md ships, run by Debian's HAProxy in front of
/// `servers` (``TestHAProxy``). Up once it answers `/health` through a server it has checked.
final class HTTPBalancer {
    let url: String
    private let haproxy: TestHAProxy

    init(servers: [BalancedServer], directory: TemporaryDirectory) throws {
        haproxy = try TestHAProxy(
            "haproxy.cfg", bind: "bind :8080", servers: servers.enumerated().map { "server s\($0.offset) 127.0.0.1:\($0.element.port) check" },
            directory: directory)
        url = "http://127.0.0.1:\(haproxy.port)"
        let url = self.url
        guard Deadline.poll(every: .milliseconds(20), until: { (try? ServiceProcess.call(url, "GET", "/health"))?.status == 200 }) else {
            throw ServiceFailed(stderr: haproxy.logText.isEmpty ? "HAProxy did not start" : haproxy.logText)
        }
    }
}
