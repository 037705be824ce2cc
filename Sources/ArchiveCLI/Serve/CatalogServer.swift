import ArchiveFront
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `archive serve`: the catalog as a json-server-style endpoint on 127.0.0.1,
/// on Hummingbird (SwiftNIO), hardened against clients that are slow, hostile or many:
///
/// - a request head (request line and headers) over ``maximumHeadBytes`` is
///   answered `431` as soon as the limit is crossed, and never buffered whole;
/// - a connection idle for ``idleTimeout`` (no complete request part: one that
///   sends nothing, or a head or body at a trickle) is closed;
/// - a body announced on a GET or HEAD (`413`) or on another method (`405`) is
///   refused at once, and the connection closed without reading it;
/// - every connection is served on SwiftNIO's event loops, so none waits for another;
/// - SIGINT or SIGTERM stops accepting and gives answers in progress
///   ``shutdownTimeout`` to finish; a second signal, or the timeout, stops at once.
struct CatalogServer: Sendable {
    /// The largest request head accepted: 16 KiB.
    static let maximumHeadBytes = 16 * 1024
    /// How many connections may wait to be accepted.
    static let backlog = 1024

    let catalog: BundledArchiveRepository
    /// Waited before each answer (`--delay`).
    let delay: Duration
    /// The fraction of requests answered 500 (`--fail-rate`).
    let failRate: Double
    /// How long a connection may stay idle before it is closed (`--idle-timeout`).
    let idleTimeout: Duration
    /// How long answers in progress may take to finish after SIGINT or SIGTERM (`--shutdown-timeout`).
    let shutdownTimeout: Duration

    /// Listens on 127.0.0.1:`port` (0 picks a free port), calls `ready` with the
    /// base URL once listening, and serves until SIGINT or SIGTERM: the first closes
    /// the listener and calls `stopping`, then answers in progress get
    /// ``shutdownTimeout`` to finish; a second signal cancels them at once.
    func run(
        port: Int, ready: @escaping @Sendable (String) -> Void, stopping: @escaping @Sendable () -> Void
    ) async throws {
        let baseURL = NIOLockedValueBox("")
        let responder = CatalogResponder(
            catalog: catalog, delay: delay, failRate: failRate, baseURL: { baseURL.withLockedValue { $0 } })
        let channel = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionLimitHandler()],
            idleTimeout: TimeAmount(idleTimeout),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: Self.maximumHeadBytes,
                maxHeaderListSize: Self.maximumHeadBytes,
                maxHeaderFieldCount: 100))
        var logger = Logger(label: "archive.serve")
        logger.logLevel = .critical
        let application = Application(
            responder: responder,
            server: .http1(configuration: channel),
            configuration: .init(address: .hostname("127.0.0.1", port: port), backlog: Self.backlog),
            onServerRunning: { channel in
                let url = "http://127.0.0.1:\(channel.localAddress?.port ?? port)"
                baseURL.withLockedValue { $0 = url }
                ready(url)
            },
            logger: logger)
        // Hummingbird's runService() traps the signals for a graceful shutdown with no time
        // limit, and ServiceLifecycle cannot make one signal both graceful and, the second
        // time, a cancellation: so the group traps none, and this task reads them itself.
        var configuration = ServiceGroupConfiguration(services: [application], logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdownTimeout
        configuration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: configuration)
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask {
                var received = signals.makeAsyncIterator()
                guard await received.next() != nil else { return }
                stopping()
                await group.triggerGracefulShutdown()
                // A second signal: cancel the group (the answers in progress with it).
                _ = await received.next()
            }
            // Whichever ends first (the group, or the second signal) ends both.
            defer { tasks.cancelAll() }
            try await tasks.next()
        }
    }
}
