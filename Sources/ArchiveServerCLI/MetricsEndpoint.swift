import Hummingbird
import Logging
import Metrics
import Prometheus

/// `archive-server --metrics-port P`: the process's metrics (swift-metrics, bootstrapped
/// with swift-prometheus's factory) at `http://127.0.0.1:P/metrics` in Prometheus's text
/// format. On loopback only: scraped by a Prometheus on the same machine (or through an SSH
/// tunnel); nothing in it needs a token, and nothing in it is a user's.
struct MetricsEndpoint {
    let registry = PrometheusCollectorRegistry()
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

    /// The endpoint's one route, `/metrics`: the registry in Prometheus's text format.
    /// Served by a listener of the service's own frame (``HTTPServiceRunner``): its
    /// connection limit, idle timeout and head limit.
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        let registry = self.registry
        router.get("metrics") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return router
    }

    static func sanitized(_ name: String) -> String {
        String(name.unicodeScalars.map { scalar in
            (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))) || scalar == "_" || scalar == ":" ? Character(scalar) : "_"
        })
    }
}
