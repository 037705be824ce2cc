/// The name and help text of every metric `archive-server` exposes (``DescribedMetricsFactory``):
/// the service's own (``ServiceMetrics``, already named as Prometheus wants) and
/// Hummingbird's `MetricsMiddleware`'s, renamed where Prometheus's conventions ask (a
/// counter ends in `_total`, a duration in `_seconds`). docs/OPERATIONS.md lists them.
enum MetricsCatalog {
    /// A metric's name in the exposition and its `# HELP` text.
    struct Entry: Equatable {
        let name: String
        let help: String
    }

    /// By the label swift-metrics is given.
    static let entries: [String: Entry] = [
        "hb.requests": Entry(name: "hb_requests_total", help: "HTTP requests answered, by route, method and status."),
        "hb.request.errors": Entry(name: "hb_request_errors_total", help: "HTTP requests that ended in an error, by route, method and error."),
        "http.server.request.duration": Entry(
            name: "http_server_request_duration_seconds", help: "How long HTTP requests took to answer, by route, method and status, in seconds."),
        "http.server.active_requests": Entry(name: "http_server_active_requests", help: "HTTP requests being answered now, by method."),
        "archive_sync_changes_pushed_total": Entry(
            name: "archive_sync_changes_pushed_total", help: "Changes devices pushed, by what the merge made of them (applied, superseded, already_held)."),
        "archive_sync_changes_pulled_total": Entry(name: "archive_sync_changes_pulled_total", help: "Changes pulls sent to devices."),
        "archive_sync_refusals_total": Entry(name: "archive_sync_refusals_total", help: "Requests refused, by reason."),
        "archive_storage_errors_total": Entry(
            name: "archive_storage_errors_total", help: "Storage calls that failed: unavailable (503), full (507) or failed (500)."),
        "archive_storage_calls_in_flight": Entry(
            name: "archive_storage_calls_in_flight", help: "Storage calls waiting for the database or in it now."),
    ]

    /// The entry of `label`; one the catalog lacks (a dependency's new metric) keeps its
    /// name, sanitized, and says so in its help text.
    static func entry(for label: String) -> Entry {
        entries[label] ?? Entry(name: sanitized(label), help: "\(label), as its library names it (not described by archive-server).")
    }

    /// Prometheus's names are `[a-zA-Z_:][a-zA-Z0-9_:]*`: Hummingbird's `hb.requests`
    /// becomes `hb_requests`.
    static func sanitized(_ name: String) -> String {
        String(name.unicodeScalars.map { scalar in
            (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))) || scalar == "_" || scalar == ":" ? Character(scalar) : "_"
        })
    }
}
