public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import UnixSignals

/// Runs an HTTP/1.1 responder on Hummingbird (SwiftNIO), hardened against clients that
/// are slow, hostile or many, for `archive-server`:
///
/// - a request head (request line and headers) over ``maximumHeadBytes`` is answered
///   `431` as soon as the limit is crossed, and never buffered whole;
/// - a connection idle for ``idleTimeout`` (no complete request part: one that sends
///   nothing, or a head or body at a trickle) is closed;
/// - past ``maximumConnections`` open connections, a new one is answered `503` and closed;
/// - an answer saying `Connection: close` (a refused body) closes the connection once
///   written, so a refused body is never read;
/// - SIGINT or SIGTERM stops accepting and gives answers in progress ``shutdownTimeout``
///   to finish; a second signal, or the timeout, stops at once;
/// - with ``tls``, every connection speaks TLS first (HTTPS), and SIGHUP reads the
///   certificate and key again (``TLSCertificates/reload()``).
public struct HTTPServiceRunner: Sendable {
    /// The largest request head accepted: 16 KiB.
    public static let maximumHeadBytes = 16 * 1024
    /// How many connections may wait to be accepted.
    static let backlog = 1024

    /// The address to listen on (`127.0.0.1` unless told otherwise).
    public var host: String
    /// The port (0 picks a free one).
    public var port: Int
    /// How long a connection may stay idle before it is closed.
    public var idleTimeout: Duration
    /// How long answers in progress may take to finish after SIGINT or SIGTERM.
    public var shutdownTimeout: Duration
    /// The most connections open at once.
    public var maximumConnections: Int
    /// Where the server logs (nothing below `critical` unless told otherwise).
    public var logger: Logger
    /// The certificate and key for HTTPS, or `nil` for plain HTTP.
    public var tls: TLSCertificates?

    /// A runner listening on `host`:`port`.
    public init(
        host: String = "127.0.0.1", port: Int, idleTimeout: Duration, shutdownTimeout: Duration,
        maximumConnections: Int = 1_024, logger: Logger = Self.quietLogger
    ) {
        self.host = host
        self.port = port
        self.idleTimeout = idleTimeout
        self.shutdownTimeout = shutdownTimeout
        self.maximumConnections = maximumConnections
        self.logger = logger
    }

    /// A logger that logs only what stops the server.
    public static var quietLogger: Logger {
        var logger = Logger(label: "archive.server")
        logger.logLevel = .critical
        return logger
    }

    /// Serves `makeResponder(baseURL)` until SIGINT or SIGTERM, calling `ready` with the base
    /// URL (`http://HOST:PORT`) once listening: the first signal closes the listener and calls
    /// `stopping`, then answers in progress get ``shutdownTimeout`` to finish; a second
    /// signal cancels them at once. `baseURL` reads the URL once it is known.
    /// With ``tls``, each SIGHUP reloads the certificate and key and calls `reloaded` with
    /// the new pair, or with why it was refused (the old pair still served).
    public func run<Responder: HTTPResponder>(
        _ makeResponder: (_ baseURL: @escaping @Sendable () -> String) -> Responder,
        ready: @escaping @Sendable (String) -> Void, stopping: @escaping @Sendable () -> Void,
        reloaded: @escaping @Sendable (Result<TLSCertificates.Summary, TLSCertificateError>) -> Void = { _ in }
    ) async throws where Responder.Context == ServiceRequestContext {
        let baseURL = NIOLockedValueBox("")
        let responder = makeResponder { baseURL.withLockedValue { $0 } }
        let counter = ConnectionCounter(limit: maximumConnections)
        let channel = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionLimitHandler(counter: counter)],
            idleTimeout: TimeAmount(idleTimeout),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: Self.maximumHeadBytes,
                maxHeaderListSize: Self.maximumHeadBytes,
                maxHeaderFieldCount: 100))
        let host = self.host, tls = self.tls
        let server: HTTPServerBuilder = try tls.map { try .tls(.http1(configuration: channel), tlsConfiguration: $0.configuration()) }
            ?? .http1(configuration: channel)
        let application = Application(
            responder: responder,
            server: server,
            configuration: .init(address: .hostname(host, port: port), backlog: Self.backlog),
            onServerRunning: { channel in
                let shown = host.contains(":") ? "[\(host)]" : host
                let url = "\(tls == nil ? "http" : "https")://\(shown):\(channel.localAddress?.port ?? port)"
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
        // SIGHUP, with TLS: the certificate and key read again, for as long as the server runs.
        var reloading: Task<Void, Never>?
        if let tls {
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            reloading = Task {
                for await _ in hangups {
                    do throws(TLSCertificateError) {
                        reloaded(.success(try tls.reload()))
                    } catch {
                        reloaded(.failure(error))
                    }
                }
            }
        }
        defer { reloading?.cancel() }
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
