import ArchiveFront
import ArchiveHTTPServer
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `archive serve [--port P] [--delay MS] [--fail-rate R] [--idle-timeout S] [--shutdown-timeout S]`.
struct ServeCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the bundled catalog over HTTP on 127.0.0.1, as a json-server-style endpoint.",
        discussion: """
            Try the HTTP catalog mode against it: archive search --api-url http://127.0.0.1:3000 チーズ. \
            The first line on stdout is the base URL. Runs until interrupted (ctrl-c). \
            Answers GET and HEAD with json-server's conventions: q (every text field, ignoring case), \
            field filters (category=洋食&category=和食, id=17), _page/_limit (X-Total-Count, Link), \
            _sort/_order, /archive_images/ID. Request heads over 16 KiB get 431, bodies 413/405, \
            and idle connections are closed after --idle-timeout. The first ctrl-c (or SIGTERM) \
            stops accepting and lets answers in progress finish for --shutdown-timeout; a second stops at once.
            """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Option(help: "The port (0 picks a free one).")
    var port: Int = 3000

    @Option(help: ArgumentHelp("Wait this many milliseconds before each answer.", valueName: "ms"))
    var delay: Int = 0

    @Option(name: .customLong("fail-rate"), help: ArgumentHelp("Answer HTTP 500 to this fraction of requests (0 to 1).", valueName: "rate"))
    var failRate: Double = 0

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Close a connection that sends no complete request part for this long.", valueName: "seconds"))
    var idleTimeout: Double = 15

    @Option(name: .customLong("shutdown-timeout"), parsing: .unconditional, help: ArgumentHelp("After ctrl-c or SIGTERM, let answers in progress finish for this long.", valueName: "seconds"))
    var shutdownTimeout: Double = 10

    func validate() throws {
        guard idleTimeout.isFinite, idleTimeout >= 0.01, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout must be between 0.01 and 86400 seconds, got \(idleTimeout)")
        }
        guard shutdownTimeout.isFinite, shutdownTimeout >= 0, shutdownTimeout <= 3_600 else {
            throw ValidationError("--shutdown-timeout must be between 0 and 3600 seconds, got \(shutdownTimeout)")
        }
        guard delay <= 3_600_000 else { throw ValidationError("--delay must be at most 3600000 ms (an hour), got \(delay)") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, got \(port)") }
        guard delay >= 0 else { throw ValidationError("--delay must not be negative, got \(delay)") }
        guard (0...1).contains(failRate) else { throw ValidationError("--fail-rate must be between 0 and 1, got \(failRate)") }
        if options.archive.apiURL != nil {
            throw ValidationError("serve always serves the bundled catalog: drop --api-url")
        }
    }

    func run() async throws {
        let runner = HTTPServiceRunner(
            port: port, idleTimeout: .milliseconds(Int((idleTimeout * 1000).rounded())),
            shutdownTimeout: .milliseconds(Int((shutdownTimeout * 1000).rounded())))
        let delay = Duration.milliseconds(self.delay), failRate = self.failRate
        let grace = shutdownTimeout == shutdownTimeout.rounded() ? String(Int(shutdownTimeout)) : String(shutdownTimeout)
        let json = self.json
        do {
            try await runner.run({ baseURL in
                CatalogResponder(catalog: BundledArchiveRepository(), delay: delay, failRate: failRate, baseURL: baseURL)
            }, ready: { url in
                let line = json ? #"{"url":"\#(url)"}"# : url
                try? FileDescriptorHandle.standardOutput.write(line + "\n")
                Terminal.message("serving the bundled catalog at \(url)/archive_images (ctrl-c stops)")
            }, stopping: {
                Terminal.message(
                    "stopping: no new connections; answers in progress get \(grace) s (ctrl-c again stops now)")
            })
        } catch {
            throw CLIError("cannot serve on 127.0.0.1:\(port): \(error); pick another --port")
        }
    }
}
