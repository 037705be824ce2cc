import ArchiveSyncWire
import Metrics

/// The service's own numbers, through swift-metrics (nothing is kept unless the process
/// bootstrapped a backend: `archive-server --metrics-port` bootstraps Prometheus's). The
/// requests by route and status, their duration and those in flight are Hummingbird's
/// `MetricsMiddleware`'s; these say what the requests did.
enum ServiceMetrics {
    /// A pushed change, by what the merge made of it (`applied`, `superseded`, `already_held`).
    static func pushed(_ answer: SyncPushResponse) {
        for (result, count) in [("applied", answer.applied), ("superseded", answer.superseded), ("already_held", answer.alreadyHeld)] where count > 0 {
            Counter(label: "archive_sync_changes_pushed_total", dimensions: [("result", result)]).increment(by: count)
        }
    }

    /// Changes a pull sent.
    static func pulled(_ count: Int) {
        Counter(label: "archive_sync_changes_pulled_total").increment(by: count)
    }

    /// A request refused, by why (``reason(forStatus:)``).
    static func refused(status: Int) {
        Counter(label: "archive_sync_refusals_total", dimensions: [("reason", reason(forStatus: status))]).increment()
    }

    /// A storage call failed: `unavailable` (503), `full` (507) or `failed` (500).
    static func storageError(_ kind: String) {
        Counter(label: "archive_storage_errors_total", dimensions: [("kind", kind)]).increment()
    }

    /// The storage calls in flight (waiting for the database, or in it): how much of the
    /// database's connection (SQLite) or pool (PostgreSQL) the requests hold.
    private static let storageInFlight = Meter(label: "archive_storage_calls_in_flight")

    /// Runs `work`, a storage call, counted in ``storageInFlight`` while it runs.
    static func storageCall<Result>(_ work: () async throws -> Result) async throws -> Result {
        storageInFlight.increment()
        defer { storageInFlight.decrement() }
        return try await work()
    }

    /// The word a refusal's status stands for, in the service's API (docs/SYNC-API.md).
    static func reason(forStatus status: Int) -> String {
        switch status {
        case 400: "bad_request"
        case 401: "unauthorized"
        case 403: "another_device"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "body_too_slow"
        case 409: "stale_push"
        case 410: "forgotten_device"
        case 413: "too_large"
        case 431: "head_too_large"
        case 503: "unavailable"
        case 507: "storage_full"
        default: "status_\(status)"
        }
    }
}
