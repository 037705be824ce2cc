public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOConcurrencyHelpers
import NIOCore
public import ServiceLifecycle
import UnixSignals

/// Runs `archive-server`'s listeners and services as one lifecycle, on Hummingbird
/// (SwiftNIO), hardened against clients that are slow, hostile or many.
///
/// Every listener it builds (``listener(_:host:port:maximumConnections:tls:ready:)``: the
/// service's, the metrics') has the same frame:
///
/// - a request head (request line and headers) over ``maximumHeadBytes`` is answered
///   `431` as soon as the limit is crossed, and never buffered whole;
/// - a connection idle for ``idleTimeout`` (no complete request part: one that sends
///   nothing, or a head or body at a trickle) is closed;
/// - past its connection limit (each listener's own, all of them within the process's
///   ``DescriptorBudget``), a new connection is answered `503` and closed;
/// - an answer saying `Connection: close` (a refused body) closes the connection once
///   written, so a refused body is never read.
///
/// ``run(_:services:signals:ready:stopping:reloaded:)`` runs them and the other services
/// (a PostgreSQL client, the event streams' audit) in one ServiceLifecycle `ServiceGroup`:
/// SIGINT or SIGTERM stops accepting and gives answers in progress ``shutdownTimeout`` to
/// finish, a second signal (or the timeout) stops at once; SIGHUP reads the TLS
/// certificate and key again, or, serving plain HTTP, is said to have nothing to reload.
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
    /// The most connections the service's listener holds open at once.
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

    /// What a SIGHUP did.
    public enum Reload: Sendable {
        /// The certificate and key were read again: this pair is served from now on.
        case reloaded(TLSCertificates.Summary)
        /// The new pair was refused (the old one is still served), for this reason.
        case refused(TLSCertificateError)
        /// The server serves plain HTTP (behind a proxy that terminates TLS): nothing to reload.
        case nothingToReload
    }

    /// A listener of `responder` on `host`:`port` with this runner's frame (head limit,
    /// idle timeout, `Connection: close` rule), at most `maximumConnections` open, speaking
    /// TLS first with `tls`; `ready` is called with its base URL (`http(s)://HOST:PORT`)
    /// once it listens. Run it as a service of ``run(_:services:signals:ready:stopping:reloaded:)``.
    public func listener<Responder: HTTPResponder>(
        _ responder: Responder, host: String, port: Int, maximumConnections: Int, tls: TLSCertificates? = nil,
        ready: @escaping @Sendable (String) -> Void
    ) throws -> Application<Responder> where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let counter = ConnectionCounter(limit: maximumConnections)
        let channel = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionLimitHandler(counter: counter)],
            idleTimeout: TimeAmount(idleTimeout),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: Self.maximumHeadBytes,
                maxHeaderListSize: Self.maximumHeadBytes,
                maxHeaderFieldCount: 100))
        let server: HTTPServerBuilder = try tls.map { try .tls(.http1(configuration: channel), tlsConfiguration: $0.configuration()) }
            ?? .http1(configuration: channel)
        return Application(
            responder: responder,
            server: server,
            configuration: .init(address: .hostname(host, port: port), backlog: Self.backlog),
            onServerRunning: { channel in
                let shown = host.contains(":") ? "[\(host)]" : host
                ready("\(tls == nil ? "http" : "https")://\(shown):\(channel.localAddress?.port ?? port)")
            },
            logger: logger)
    }

    /// Runs `services` (listeners first among them: ``listener(_:host:port:maximumConnections:tls:ready:)``)
    /// in one `ServiceGroup` until `signals` stop it: the first SIGINT or SIGTERM calls
    /// `stopping` and shuts the services down gracefully in reverse order (answers in
    /// progress get ``shutdownTimeout``), a second one cancels them at once. Each SIGHUP
    /// reloads ``tls`` and calls `reloaded` with what it did. A service that fails ends
    /// the group, and this throws its error.
    public func run(
        _ services: [any Service], signals: ServiceSignals, stopping: @escaping @Sendable () -> Void,
        reloaded: @escaping @Sendable (Reload) -> Void
    ) async throws {
        // ServiceLifecycle cannot make one signal both graceful and, the second time, a
        // cancellation: so the group traps none, and this task reads them itself.
        var configuration = ServiceGroupConfiguration(services: services, logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdownTimeout
        configuration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: configuration)
        let tls = self.tls
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask {
                var received = signals.stops.makeAsyncIterator()
                guard await received.next() != nil else { return }
                stopping()
                await group.triggerGracefulShutdown()
                // A second signal: cancel the group (the answers in progress with it).
                _ = await received.next()
            }
            // SIGHUP, in every mode and for as long as the server runs. This task never ends
            // the group: it is cancelled with the others.
            let hangups = signals.hangups
            tasks.addTask {
                for await _ in hangups {
                    guard let tls else {
                        reloaded(.nothingToReload)
                        continue
                    }
                    do throws(TLSCertificateError) {
                        reloaded(.reloaded(try tls.reload()))
                    } catch {
                        reloaded(.refused(error))
                    }
                }
                try await Task.sleep(for: .seconds(86_400 * 365))
            }
            // Whichever ends first (the group, or the second signal) ends all.
            defer { tasks.cancelAll() }
            try await tasks.next()
        }
    }
}

/// A service that runs `body`: a PostgreSQL client's `run()`, or any work that lasts as
/// long as the server.
public struct LifecycleTask: Service {
    let body: @Sendable () async throws -> Void

    /// The service running `body`.
    public init(_ body: @escaping @Sendable () async throws -> Void) {
        self.body = body
    }

    /// Runs `body`.
    public func run() async throws {
        try await body()
    }
}
