import Foundation
import TestSupport

/// `archive-server serve` on a PostgreSQL database at a port of its own, for a balancer to
/// send requests to (``HTTPBalancer``); ``restart(database:directory:)`` is a rolling
/// restart's step.
final class BalancedServer {
    let port: Int
    let arguments: [String]
    private(set) var process: ChildProcess

    /// Starts it with `--postgres database` and `arguments` (`--postgres-events URL`, …).
    init(database: String, arguments: [String] = [], directory: TemporaryDirectory) throws {
        port = try LoopbackSocket.freePort()
        self.arguments = arguments
        process = try Self.start(port: port, database: database, arguments: arguments, directory: directory)
    }

    /// The URL that reaches it directly, not through a balancer.
    var url: String { "http://127.0.0.1:\(port)" }

    private static func start(port: Int, database: String, arguments: [String], directory: TemporaryDirectory) throws -> ChildProcess {
        let process = try ChildProcess(
            ServiceProcess.executable.path, ["--postgres", database, "--port", "\(port)"] + arguments,
            environment: ServiceProcess.environment(directory), streamingStdout: true)
        guard process.nextLine()?.hasPrefix("http://127.0.0.1:\(port)") == true else { throw ServiceFailed(stderr: process.kill().stderr) }
        return process
    }

    /// Stops it as systemd does (SIGTERM, waiting for its answers in progress; a process
    /// killed before is only waited for), then starts it again on the same port.
    func restart(database: String, directory: TemporaryDirectory) throws {
        process.signal(SIGTERM)
        _ = process.wait(orKillAfter: .seconds(60))
        process = try Self.start(port: port, database: database, arguments: arguments, directory: directory)
    }

    deinit {
        process.signal(SIGTERM)
        process.wait()
    }
}
