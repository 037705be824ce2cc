import Synchronization

/// When `archive-server` is ready: once its listener (and, with `--metrics-port`, the
/// metrics' listener) listens, `announce` is called once with both URLs, so the first line
/// on stdout is always the service's URL and the second the metrics'.
final class Readiness: Sendable {
    private struct State {
        var service: String?
        var metrics: String?
        var announced = false
    }

    private let expectsMetrics: Bool
    private let announce: @Sendable (_ service: String, _ metrics: String?) -> Void
    private let state = Mutex(State())

    /// Waits for the service's URL, and the metrics' when `expectsMetrics`.
    init(expectsMetrics: Bool, announce: @escaping @Sendable (_ service: String, _ metrics: String?) -> Void) {
        self.expectsMetrics = expectsMetrics
        self.announce = announce
    }

    /// The service's base URL once it listens (empty before).
    var baseURL: @Sendable () -> String {
        { [self] in self.service }
    }

    /// The service's base URL (empty before it listens).
    private var service: String { state.withLock { $0.service ?? "" } }

    /// The service's listener listens at `url`.
    func service(_ url: String) {
        state.withLock { $0.service = url }
        announceIfReady()
    }

    /// The metrics' listener listens at `url`.
    func metrics(_ url: String) {
        state.withLock { $0.metrics = url }
        announceIfReady()
    }

    private func announceIfReady() {
        let ready: (String, String?)? = state.withLock { state in
            guard !state.announced, let service = state.service, !expectsMetrics || state.metrics != nil else { return nil }
            state.announced = true
            return (service, state.metrics)
        }
        if let (service, metrics) = ready { announce(service, metrics) }
    }
}
