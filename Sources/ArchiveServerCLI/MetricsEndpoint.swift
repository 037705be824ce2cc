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

    /// Makes every metric of the process go to this endpoint's registry (once a process),
    /// named and described by ``MetricsCatalog``.
    func bootstrap() {
        MetricsSystem.bootstrap(DescribedMetricsFactory(registry: registry))
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
}
