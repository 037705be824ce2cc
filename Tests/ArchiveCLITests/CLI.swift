import Foundation
import TestSupport

/// Runs the built `archive` binary as a child process, the way a user would.
struct CLI {
    typealias Result = ChildProcess.Result

    /// The `archive` executable next to the test binary.
    static let executable = BuiltProduct.url(named: "archive")

    let directory: TemporaryDirectory
    let database: String

    init() throws {
        directory = try TemporaryDirectory()
        database = directory.path("favorites.sqlite3")
    }

    /// The environment of a child: this one's, without the archive variables, with HOME in the temp dir.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["ARCHIVE_DATABASE"] = nil
        environment["ARCHIVE_API_URL"] = nil
        environment["ARCHIVE_API_TIMEOUT"] = nil
        environment["XDG_DATA_HOME"] = nil
        environment["HOME"] = directory.url.path
        environment["NO_COLOR"] = "1"
        return environment.merging(extra) { $1 }
    }

    /// Runs `archive ARGUMENTS --database <temp db>` (unless `useDatabase` is false) and waits for it.
    @discardableResult
    func run(
        _ arguments: [String], useDatabase: Bool = true, environment extra: [String: String] = [:],
        input: ChildProcess.Input = .null, executable: URL = CLI.executable, timeout: Duration = .seconds(120)
    ) throws -> Result {
        // The database option goes right after the subcommand, before any `--`.
        var arguments = arguments
        if useDatabase { arguments.insert(contentsOf: ["--database", database], at: min(1, arguments.count)) }
        return try ChildProcess.run(executable.path, arguments, environment: environment(extra), input: input, timeout: timeout)
    }
}

/// `archive-server` ended without printing its URL.
struct ServeFailed: Error, CustomStringConvertible {
    let stderr: String
    var description: String { "archive-server did not print its URL: \(stderr)" }
}

/// A running `archive-server` serving the bundled catalog (on a database of the test's
/// own), stopped when the test ends.
final class ServeProcess {
    /// `archive-server`, which serves the catalog (and the sync API, unused here).
    static let executable = BuiltProduct.url(named: "archive-server")

    let process: ChildProcess
    let url: String

    init(cli: CLI, arguments: [String] = []) throws {
        process = try ChildProcess(
            Self.executable.path, Self.storage(cli) + ["--port", "0"] + arguments,
            environment: cli.environment(), streamingStdout: true)
        // The first stdout line is the base URL (nil if serve failed).
        url = process.nextLine()?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard url.hasPrefix("http://127.0.0.1:") else {
            throw ServeFailed(stderr: process.kill().stderr)
        }
    }

    deinit {
        process.signal(SIGTERM)
        process.wait()
    }

    /// The service's database, in the test's directory.
    static func storage(_ cli: CLI) -> [String] {
        ["--database", cli.directory.url.appendingPathComponent("server.sqlite3").path]
    }

    /// Runs `archive-server ARGUMENTS` on the test's database and waits for it.
    static func run(_ arguments: [String], cli: CLI, timeout: Duration = .seconds(60)) throws -> ChildProcess.Result {
        try ChildProcess.run(executable.path, storage(cli) + arguments, environment: cli.environment(), timeout: timeout)
    }
}
