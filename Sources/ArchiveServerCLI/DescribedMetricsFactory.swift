import Metrics
import Prometheus

/// swift-metrics' factory for `archive-server --metrics-port`: every metric into one
/// Prometheus registry under the name and help text ``MetricsCatalog`` gives it, so that
/// the exposition passes `promtool check metrics` (counters end in `_total`, durations in
/// `_seconds`, every family has `# HELP`).
///
/// Written here rather than using swift-prometheus's `PrometheusMetricsFactory`, which
/// registers every metric with an empty help text and the name as the library gave it
/// (Hummingbird's counter `hb.requests`, without `_total`); this one calls the same
/// registry's public `make…(descriptor:labels:)`.
struct DescribedMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    /// Buckets of the request durations, as swift-prometheus's factory has them.
    let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10),
    ]
    let valueBuckets: [Double] = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000]

    private func described(_ label: String, _ dimensions: [(String, String)]) -> (MetricNameDescriptor, [(String, String)]) {
        let entry = MetricsCatalog.entry(for: label)
        return (
            MetricNameDescriptor(metricName: entry.name, unitName: "", helpText: entry.help),
            dimensions.map { (MetricsCatalog.sanitized($0.0), $0.1) }
        )
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        // Hummingbird's MetricsMiddleware makes an error counter with every route's request
        // counter, whatever the answer's status; it counts only thrown errors, so one of a 2xx
        // or 3xx status stays 0 for ever, and exported it reads as "errors of status 200".
        if label == Self.requestErrors, let status = dimensions.first(where: { $0.0 == "error.type" })?.1, let code = Int(status), code < 400 {
            return NOOPMetricsHandler.instance
        }
        let (descriptor, labels) = described(label, dimensions)
        return registry.makeCounter(descriptor: descriptor, labels: labels)
    }

    /// Hummingbird's counter of the requests that ended in an error.
    static let requestErrors = "hb.request.errors"

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        let (descriptor, labels) = described(label, dimensions)
        return registry.makeCounter(descriptor: descriptor, labels: labels)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        let (descriptor, labels) = described(label, dimensions)
        guard aggregate else { return registry.makeGauge(descriptor: descriptor, labels: labels) }
        return registry.makeValueHistogram(descriptor: descriptor, labels: labels, buckets: valueBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        let (descriptor, labels) = described(label, dimensions)
        return registry.makeGauge(descriptor: descriptor, labels: labels)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let (descriptor, labels) = described(label, dimensions)
        return registry.makeDurationHistogram(descriptor: descriptor, labels: labels, buckets: durationBuckets)
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
