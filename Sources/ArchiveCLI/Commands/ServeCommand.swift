import ArchiveFront
import ArgumentParser
import Foundation

/// `archive serve [--port P] [--delay MS] [--fail-rate R]`.
struct ServeCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the bundled catalog over HTTP on 127.0.0.1, as a json-server-style endpoint.",
        discussion: """
            Try the HTTP catalog mode against it: archive search --api-url http://127.0.0.1:3000 チーズ. \
            The first line on stdout is the base URL. Runs until interrupted (ctrl-c).
            """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Option(help: "The port (0 picks a free one).")
    var port: Int = 3000

    @Option(help: ArgumentHelp("Wait this many milliseconds before each answer.", valueName: "ms"))
    var delay: Int = 0

    @Option(name: .customLong("fail-rate"), help: ArgumentHelp("Answer HTTP 500 to this fraction of requests (0 to 1).", valueName: "rate"))
    var failRate: Double = 0

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, got \(port)") }
        guard delay >= 0 else { throw ValidationError("--delay must not be negative, got \(delay)") }
        guard (0...1).contains(failRate) else { throw ValidationError("--fail-rate must be between 0 and 1, got \(failRate)") }
        if options.archive.apiURL != nil {
            throw ValidationError("serve always serves the bundled catalog: drop --api-url")
        }
    }

    func run() async throws {
        let server = CatalogServer(catalog: BundledArchiveRepository(), delay: .milliseconds(delay), failRate: failRate)
        let json = self.json
        do {
            try await server.run(port: UInt16(port)) { url in
                let line = json ? #"{"url":"\#(url)"}"# : url
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
                Terminal.message("serving the bundled catalog at \(url)/archive_images (ctrl-c stops)")
            }
        } catch {
            throw CLIError("cannot serve on 127.0.0.1:\(port): \(error); pick another --port")
        }
    }
}
