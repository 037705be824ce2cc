import ArchiveAPI
import ArchiveHTTPServer
import ArchiveServer
import ArchiveSyncWire
import ArgumentParser
import Logging
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

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Close a connection that sends no complete request part for this long.", valueName: "seconds"))
    var idleTimeout: Double = 30

    @Option(name: .customLong("shutdown-timeout"), help: ArgumentHelp("After ctrl-c or SIGTERM, let answers in progress finish for this long.", valueName: "seconds"))
    var shutdownTimeout: Double = 10

    @Option(name: .customLong("max-body-bytes"), help: ArgumentHelp("The largest request body.", valueName: "bytes"))
    var maximumBodyBytes = SyncAPI.defaultMaximumBodyBytes

    @Option(name: .customLong("max-push"), help: ArgumentHelp("The most changes one push may carry.", valueName: "changes"))
    var maximumPushChanges = SyncAPI.defaultMaximumPushChanges

    @Option(name: .customLong("max-page"), help: ArgumentHelp("The most changes one pull page holds.", valueName: "changes"))
    var maximumPageSize = SyncAPI.defaultMaximumPageSize

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("The most connections open at once (more are answered 503).", valueName: "count"))
    var maximumConnections = 1_024

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel = "info"

    func validate() throws {
        guard idleTimeout.isFinite, idleTimeout >= 0.01, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout must be between 0.01 and 86400 seconds, got \(idleTimeout)")
        }
        guard shutdownTimeout.isFinite, shutdownTimeout >= 0, shutdownTimeout <= 3_600 else {
            throw ValidationError("--shutdown-timeout must be between 0 and 3600 seconds, got \(shutdownTimeout)")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, got \(port)") }
        guard (1_024...(256 << 20)).contains(maximumBodyBytes) else {
            throw ValidationError("--max-body-bytes must be between 1024 and \(256 << 20), got \(maximumBodyBytes)")
        }
        guard (1...100_000).contains(maximumPushChanges) else { throw ValidationError("--max-push must be between 1 and 100000, got \(maximumPushChanges)") }
        guard (1...100_000).contains(maximumPageSize) else { throw ValidationError("--max-page must be between 1 and 100000, got \(maximumPageSize)") }
        guard (1...1_000_000).contains(maximumConnections) else {
            throw ValidationError("--max-connections must be between 1 and 1000000, got \(maximumConnections)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got \(logLevel)")
        }
    }

    func run() async throws {
        let database = try storage.merged(over: root.storage).open()
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "archive-server")
        var limits = SyncServiceLimits()
        limits.maximumBodyBytes = maximumBodyBytes
        limits.maximumPushChanges = maximumPushChanges
        limits.maximumPageSize = maximumPageSize
        let runner = HTTPServiceRunner(
            host: host, port: port, idleTimeout: .milliseconds(Int((idleTimeout * 1000).rounded())),
            shutdownTimeout: .milliseconds(Int((shutdownTimeout * 1000).rounded())),
            maximumConnections: maximumConnections, logger: logger)
        let backend = SQLiteSyncBackend(database: database)
        let grace = shutdownTimeout, host = self.host, port = self.port
        do {
            try await runner.run({ baseURL in
                SyncResponder(
                    backend: backend, limits: limits,
                    catalog: CatalogResponder(catalog: BundledArchiveRepository(), baseURL: baseURL), logger: logger)
            }, ready: { url in
                StandardStream.output(url + "\n")
                logger.notice("serving", metadata: ["url": "\(url)", "database": "\(database.path)"])
            }, stopping: {
                logger.notice("stopping: no new connections; answers in progress get \(grace) s (ctrl-c again stops now)")
            })
        } catch {
            throw ServerCLIError("cannot serve on \(host):\(port): \(error); pick another --port or --host")
        }
    }
}
