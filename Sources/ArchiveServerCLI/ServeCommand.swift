import ArchiveCommandLine
import ArchiveServerSQLite
import ArchiveServerStorage
import ArchiveNetwork
import ArchiveAPI
import ArchiveHTTPServer
import ArchiveServer
import ArchiveServerPostgres
import ArchiveSyncWire
import ArgumentParser
import Hummingbird
import Logging
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// `archive-server [serve] [--host H] [--port P] [limits…]`: serves the sync API and the catalog.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the sync API and the catalog (the default).",
        discussion: """
            The first line on stdout is the base URL. Logs go to stderr, one line per request \
            (its ID, method, path, status, user; never a token). The first ctrl-c (or SIGTERM) \
            stops accepting and lets answers in progress finish for --shutdown-timeout; a second stops at once.
            """)

    @OptionGroup var storage: ServerStorageOptions
    @ParentCommand var root: ArchiveServerCommand

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port (0 picks a free one).")
    var port = 8080

    @Option(name: .customLong("tls-certificate"), help: ArgumentHelp("Serve HTTPS with this certificate chain (PEM, the server's certificate first), read again on SIGHUP.", valueName: "pem"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The private key of --tls-certificate (PEM), read again on SIGHUP.", valueName: "pem"))
    var tlsKey: String?

    @Flag(name: .customLong("insecure-http"), help: "Serve plain HTTP on an address that is not loopback: only behind a proxy that terminates TLS.")
    var insecureHTTP = false

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Close a connection that sends no complete request part for this long.", valueName: "seconds"))
    var idleTimeout: Double = 30

    @Option(name: .customLong("shutdown-timeout"), parsing: .unconditional, help: ArgumentHelp("After ctrl-c or SIGTERM, let answers in progress finish for this long.", valueName: "seconds"))
    var shutdownTimeout: Double = 10

    @Option(name: .customLong("request-timeout"), help: ArgumentHelp("Answer 503 to a request that waits for the database longer than this.", valueName: "seconds"))
    var requestTimeout: Double = 10

    @Option(name: .customLong("max-body-bytes"), help: ArgumentHelp("The largest request body.", valueName: "bytes"))
    var maximumBodyBytes = SyncAPI.defaultMaximumBodyBytes

    @Option(name: .customLong("body-timeout"), help: ArgumentHelp("Answer 408 to a push whose whole body has not arrived within this long.", valueName: "seconds"))
    var bodyTimeout: Double = 60

    @Option(name: .customLong("max-body-bytes-in-flight"), help: ArgumentHelp("The most bytes of request bodies held at once, across all connections (a body that finds no room is answered 503; default 64 MiB, or --max-body-bytes if larger).", valueName: "bytes"))
    var maximumBodyBytesInFlight: Int?

    @Option(name: .customLong("max-push"), help: ArgumentHelp("The most changes one push may carry.", valueName: "changes"))
    var maximumPushChanges = SyncAPI.defaultMaximumPushChanges

    @Option(name: .customLong("max-page"), help: ArgumentHelp("The most changes one pull page holds.", valueName: "changes"))
    var maximumPageSize = SyncAPI.defaultMaximumPageSize

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("The most connections open at once (more are answered 503); fewer if the descriptor limit (ulimit -n) leaves room for fewer, said at start.", valueName: "count"))
    var maximumConnections = 1_024

    @Option(help: ArgumentHelp("The catalog waits this many milliseconds before each answer (to try a client against a slow catalog).", valueName: "ms"))
    var delay: Int = 0

    @Option(name: .customLong("fail-rate"), help: ArgumentHelp("The catalog answers HTTP 500 to this fraction of requests (0 to 1; to try a client against a failing one).", valueName: "rate"))
    var failRate: Double = 0

    @Option(name: .customLong("postgres-connections"), help: ArgumentHelp("With --postgres: the most connections the service opens to PostgreSQL.", valueName: "count"))
    var postgresConnections = 20

    @Option(name: .customLong("postgres-events"), help: ArgumentHelp(
        "With --postgres through a pooler in transaction mode (PgBouncer), which cannot hold a LISTEN: a direct URL of the same PostgreSQL, where the servers hear each other's pushes (default: the --postgres URL).",
        valueName: "url"))
    var postgresEvents: String?

    @Option(name: .customLong("metrics-port"), help: ArgumentHelp("Serve the service's metrics at http://127.0.0.1:PORT/metrics, in Prometheus's text format.", valueName: "port"))
    var metricsPort: Int?

    @Option(name: .customLong("public-url"), help: ArgumentHelp("The service's address as browsers reach it (https://HOST… behind a proxy that terminates TLS): only requests for that host, or loopback, are answered (DNS rebinding); with https, the session cookie is Secure and answers say Strict-Transport-Security.", valueName: "url"))
    var publicURL: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel = "info"

    func validate() throws {
        guard idleTimeout.isFinite, idleTimeout >= 0.01, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout must be between 0.01 and 86400 seconds, got \(idleTimeout)")
        }
        guard shutdownTimeout.isFinite, shutdownTimeout >= 0, shutdownTimeout <= 3_600 else {
            throw ValidationError("--shutdown-timeout must be between 0 and 3600 seconds, got \(shutdownTimeout)")
        }
        guard requestTimeout.isFinite, requestTimeout >= 0.01, requestTimeout <= 3_600 else {
            throw ValidationError("--request-timeout must be between 0.01 and 3600 seconds, got \(requestTimeout)")
        }
        guard (0...3_600_000).contains(delay) else { throw ValidationError("--delay must be from 0 to 3600000 ms (an hour), got \(delay)") }
        guard (0...1).contains(failRate) else { throw ValidationError("--fail-rate must be between 0 and 1, got \(failRate)") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, got \(port)") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together: give both (HTTPS) or neither")
        }
        if tlsCertificate != nil, insecureHTTP {
            throw ValidationError("--insecure-http serves plain HTTP, --tls-certificate HTTPS: give one")
        }
        if tlsCertificate == nil, !insecureHTTP, !LoopbackAddress.isLoopback(host) {
            throw ValidationError("""
                --host \(host) is reachable from other machines, and plain HTTP would carry the devices' tokens \
                in the clear: serve HTTPS with --tls-certificate PEM --tls-key PEM, or pass --insecure-http \
                when a proxy in front terminates TLS (docs/SYNC-API.md, "TLS")
                """)
        }
        guard (1_024...(256 << 20)).contains(maximumBodyBytes) else {
            throw ValidationError("--max-body-bytes must be between 1024 and \(256 << 20), got \(maximumBodyBytes)")
        }
        guard bodyTimeout.isFinite, bodyTimeout >= 1, bodyTimeout <= 3_600, bodyTimeout == bodyTimeout.rounded() else {
            throw ValidationError("--body-timeout must be a whole number of seconds from 1 to 3600, got \(bodyTimeout)")
        }
        if let maximumBodyBytesInFlight, !(maximumBodyBytes...(16 << 30)).contains(maximumBodyBytesInFlight) {
            throw ValidationError("--max-body-bytes-in-flight must be at least --max-body-bytes (\(maximumBodyBytes)) and at most \(16 << 30), got \(maximumBodyBytesInFlight)")
        }
        guard (1...100_000).contains(maximumPushChanges) else { throw ValidationError("--max-push must be between 1 and 100000, got \(maximumPushChanges)") }
        guard (1...100_000).contains(maximumPageSize) else { throw ValidationError("--max-page must be between 1 and 100000, got \(maximumPageSize)") }
        guard (1...1_000_000).contains(maximumConnections) else {
            throw ValidationError("--max-connections must be between 1 and 1000000, got \(maximumConnections)")
        }
        guard (1...10_000).contains(postgresConnections) else {
            throw ValidationError("--postgres-connections must be between 1 and 10000, got \(postgresConnections)")
        }
        if let publicURL, DevicesCommand.linkBase(publicURL) == nil {
            throw ValidationError("--public-url must be http:// or https:// followed by a host (and a port), got \(publicURL.prefix(200).debugDescription)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got \(logLevel)")
        }
    }

    func run() async throws {
        // First of all: a signal from now on is the lifecycle's to answer (SIGHUP reloads,
        // SIGTERM stops gracefully), even while the database opens or migrates.
        let signals = await ServiceSignals.trap()
        SteadyMallocThreshold.enable()
        let storage = self.storage.merged(over: root.storage)
        let postgres = try storage.postgresLocation()
        // Before the file opens: a restore running puts another file in its place, and
        // `archive-server restore` must not replace the file of a running service.
        let lock: ServiceLock?
        do {
            lock = postgres == nil ? try ServiceLock(database: try storage.databasePath(), for: .serve) : nil
        } catch {
            throw ServerCLIError("cannot serve: \(error)")
        }
        let database = postgres == nil ? try storage.open() : nil
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "archive-server")
        guard let postgres else {
            if postgresEvents != nil { throw ValidationError("--postgres-events goes with --postgres: the SQLite backend is one process, with no other server to hear") }
            guard let database else { return }
            // Closed here, after the last request, not whenever a pool thread drops the last
            // reference: the closing checkpoint runs before the process exits.
            // The lock let go after the database closes (defers run last first).
            defer { withExtendedLifetime(lock) {} }
            defer { database.close() }
            try await serve(SQLiteSyncBackend(database: database), storage: database.path, signals: signals, logger: logger)
            return
        }
        let events: PostgresLocation?
        do {
            events = try postgresEvents.map { try PostgresLocation(url: $0) }
        } catch {
            throw ServerCLIError("--postgres-events: \(error)")
        }
        if let events { ServerStorageOptions.warn(about: events, fromOption: "--postgres-events", variable: nil) }
        let backend = PostgresSyncStorage(location: postgres, eventsLocation: events, maximumConnections: postgresConnections, logger: logger)
        // The client is a service of the one lifecycle, started first and stopped last; the
        // migrations run before the listener opens.
        try await serve(
            backend, storage: postgres.description, signals: signals, logger: logger, services: [LifecycleTask { await backend.run() }],
            beforeServing: {
                do {
                    try await backend.migrate()
                } catch let error as PostgresStorageError {
                    switch error {
                    case .cannotConnect, .commitsNotFlushed: throw ServerCLIError("\(error)")  // names the URL already
                    default: throw ServerCLIError("cannot use \(postgres): \(error)")
                    }
                } catch {
                    throw ServerCLIError("cannot use \(postgres): \(error)")
                }
            })
    }

    /// The most connections the metrics' listener holds open (Prometheus needs one or two),
    /// taken from the same descriptor budget as the service's.
    static let metricsConnections = 16

    /// Serves the sync API on `backend` and the catalog until a signal stops the server, in
    /// one lifecycle with `services` (started before the listeners, stopped after them);
    /// `beforeServing` runs before the service's listener opens.
    private func serve(
        _ backend: some SyncBackend, storage: String, signals: ServiceSignals, logger: Logger, services: [any Service] = [],
        beforeServing: (@Sendable () async throws -> Void)? = nil
    ) async throws {
        var limits = SyncServiceLimits()
        limits.maximumBodyBytes = maximumBodyBytes
        limits.maximumPushChanges = maximumPushChanges
        limits.maximumPageSize = maximumPageSize
        limits.requestTimeout = .milliseconds(Int((requestTimeout * 1000).rounded()))
        limits.bodyTimeout = .milliseconds(Int((bodyTimeout * 1000).rounded()))
        limits.maximumBodyBytesInFlight = maximumBodyBytesInFlight ?? max(limits.maximumBodyBytesInFlight, maximumBodyBytes)
        // Connections stay below the descriptor limit (DescriptorBudget): past it, nothing
        // could be answered at all, not even the connection limit's 503. The metrics'
        // listener's connections come out of the same budget.
        let sideConnections = metricsPort == nil ? 0 : Self.metricsConnections
        let budget = DescriptorBudget.make(wanted: maximumConnections, extra: backend.descriptorsKept + sideConnections)
        if budget.connections < maximumConnections {
            logger.warning("at most \(budget.connections) connections, not \(maximumConnections) (--max-connections): the descriptor limit is \(budget.descriptorLimit), \(budget.reserve) kept for the storage and the server; raise it (ulimit -n, LimitNOFILE=) for more")
        } else {
            logger.notice("at most \(budget.connections) connections (descriptor limit \(budget.descriptorLimit), \(budget.reserve) kept for the storage and the server)")
        }
        var runner = HTTPServiceRunner(
            host: host, port: port, idleTimeout: .milliseconds(Int((idleTimeout * 1000).rounded())),
            shutdownTimeout: .milliseconds(Int((shutdownTimeout * 1000).rounded())),
            maximumConnections: budget.connections, logger: logger)
        if let tlsCertificate, let tlsKey {
            do throws(TLSCertificateError) {
                runner.tls = try TLSCertificates(certificate: tlsCertificate, key: tlsKey)
            } catch {
                throw ServerCLIError(error.description)
            }
            logger.notice("HTTPS with \(runner.tls?.summary.description ?? "?") (SIGHUP reads the certificate and key again)")
        }
        let grace = shutdownTimeout == shutdownTimeout.rounded() ? String(Int(shutdownTimeout)) : String(shutdownTimeout)
        let host = self.host, port = self.port, delay = Duration.milliseconds(self.delay), failRate = self.failRate
        let notifier = ServiceManagerNotifier.fromEnvironment()
        let readiness = Readiness(expectsMetrics: metricsPort != nil) { url, metricsURL in
            // The service's URL on the first line (what scripts read), the metrics' on the second.
            StandardStream.output(url + "\n" + (metricsURL.map { $0 + "\n" } ?? ""))
            if let metricsURL { logger.notice("metrics", metadata: ["url": "\(metricsURL)"]) }
            logger.notice("serving", metadata: ["url": "\(url)", "storage": "\(storage)"])
            // Last: systemd lets `systemctl reload` through from now on (the signals were
            // trapped before anything listened).
            do throws(ServiceManagerNotifier.Failure) {
                try notifier.ready(status: "serving on \(url)")
            } catch {
                logger.warning("\(error)")
            }
        }
        var listeners: [any Service] = []
        if let metricsPort {
            let endpoint = MetricsEndpoint(logger: logger)
            endpoint.bootstrap()
            let metrics = try runner.listener(
                endpoint.router().buildResponder(), host: "127.0.0.1", port: metricsPort, maximumConnections: Self.metricsConnections,
                ready: { url in readiness.metrics(url + "/metrics") })
            listeners.append(LifecycleTask {
                do {
                    try await metrics.run()
                } catch {
                    throw ServerCLIError("cannot serve the metrics on 127.0.0.1:\(metricsPort): \(NetworkFailure.phrase(for: error) ?? "\(error)"); pick another --metrics-port")
                }
            })
        }
        let broadcast = backend.feedBroadcast
        let events = FeedEvents(broadcast: broadcast)
        let overHTTPS = runner.tls != nil || publicURL?.hasPrefix("https://") == true
        let baseURL = readiness.baseURL
        let router = try ServiceRouter(
            backend: backend, limits: limits,
            catalog: CatalogResponder(catalog: BundledArchiveRepository(), delay: delay, failRate: failRate, baseURL: baseURL),
            events: events, overHTTPS: overHTTPS, publicURL: publicURL, measured: metricsPort != nil, logger: logger
        ).router()
        var main = try runner.listener(router.buildResponder(), host: host, port: port, maximumConnections: budget.connections, tls: runner.tls) { url in
            readiness.service(url)
        }
        if let beforeServing { main.beforeServerStarts(perform: beforeServing) }
        let service = main
        listeners.append(LifecycleTask {
            do {
                try await service.run()
            } catch let error as ServerCLIError {
                throw error
            } catch {
                throw ServerCLIError("cannot serve on \(host):\(port): \(NetworkFailure.phrase(for: error) ?? "\(error)"); pick another --port or --host")
            }
        })
        let audit = StreamAudit(backend: backend, events: events, logger: logger)
        let relay: [any Service] = broadcast.map { [FeedRelay(broadcast: $0, events: events)] } ?? []
        try await runner.run(services + [audit] + relay + listeners, signals: signals, stopping: {
            logger.notice("stopping: no new connections; answers in progress get \(grace) s (ctrl-c again stops now)")
            do throws(ServiceManagerNotifier.Failure) {
                try notifier.stopping(status: "stopping: answers in progress get \(grace) s")
            } catch {
                logger.warning("\(error)")
            }
        }, reloaded: { outcome in
            switch outcome {
            case .reloaded(let summary): logger.notice("reloaded the TLS certificate: \(summary)")
            case .refused(let error): logger.error("kept the TLS certificate served until now: \(error)")
            case .nothingToReload: logger.notice("SIGHUP: nothing to reload: this server serves plain HTTP (TLS is the proxy's in front); the certificate is reloaded where TLS ends")
            }
        })
    }
}
