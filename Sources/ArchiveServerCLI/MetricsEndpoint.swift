import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `archive-server --metrics-port P`: the process's metrics (swift-metrics, bootstrapped
/// with swift-prometheus's factory) at `http://127.0.0.1:P/metrics` in Prometheus's text
/// format. On loopback only: scraped by a Prometheus on the same machine (or through an SSH
/// tunnel); nothing in it needs a token, and nothing in it is a user's.
struct MetricsEndpoint {
    let registry = PrometheusCollectorRegistry()
    let port: Int
    let logger: Logger

    /// Makes every metric of the process go to this endpoint's registry (once a process).
    func bootstrap() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Prometheus's names are `[a-zA-Z_:][a-zA-Z0-9_:]*`: Hummingbird's `hb.requests`
        // becomes `hb_requests`; label values are left as they are.
        factory.nameAndLabelSanitizer = { name, labels in
            (Self.sanitized(name), labels.map { (Self.sanitized($0.0), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
    }

    /// Serves `/metrics` until the task is cancelled; `ready` is called with the URL once
    /// listening. Throws what stopped it (the port taken).
    func run(ready: @escaping @Sendable (String) -> Void) async throws {
        let router = Router()
        let registry = self.registry
        router.get("metrics") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        var quiet = logger
        quiet.logLevel = .critical
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in ready("http://127.0.0.1:\(channel.localAddress?.port ?? port)/metrics") },
            logger: quiet)
        let group = ServiceGroup(configuration: .init(services: [application], logger: quiet))
        try await group.run()
    }

    static func sanitized(_ name: String) -> String {
        String(name.unicodeScalars.map { scalar in
            (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))) || scalar == "_" || scalar == ":" ? Character(scalar) : "_"
        })
    }
}

/// A responder with Hummingbird's ``MetricsMiddleware`` in front, when `measures`: each
/// request counted by route, method and status, with its duration.
struct MeasuredResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: RequestContext {
    let inner: Inner
    let measures: Bool
    let middleware = MetricsMiddleware<Inner.Context>()

    func respond(to request: Request, context: Inner.Context) async throws -> Response {
        guard measures else { return try await inner.respond(to: request, context: context) }
        return try await middleware.handle(request, context: context) { request, context in
            try await inner.respond(to: request, context: context)
        }
    }
}
