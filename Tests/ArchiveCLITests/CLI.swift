import Foundation
import TestSupport

/// Runs the built `archive` binary as a child process, the way a user would.
struct CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        /// stdout parsed as JSON.
        func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        }
    }

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
        environment["XDG_DATA_HOME"] = nil
        environment["HOME"] = directory.url.path
        environment["NO_COLOR"] = "1"
        return environment.merging(extra) { $1 }
    }

    /// Runs `archive ARGUMENTS --database <temp db>` (unless `useDatabase` is false) and waits for it.
    @discardableResult
    func run(_ arguments: [String], useDatabase: Bool = true, environment extra: [String: String] = [:], executable: URL = CLI.executable) throws -> Result {
        let process = Process()
        process.executableURL = executable
        // The database option goes right after the subcommand, before any `--`.
        var arguments = arguments
        if useDatabase { arguments.insert(contentsOf: ["--database", database], at: min(1, arguments.count)) }
        process.arguments = arguments
        process.environment = environment(extra)
        let outPath = directory.path("stdout-\(UUID().uuidString)")
        let errPath = directory.path("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self),
            stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self))
    }
}

/// A running `archive serve`, stopped when the test ends.
final class ServeProcess {
    let process = Process()
    let url: String

    init(cli: CLI, arguments: [String] = []) throws {
        let pipe = Pipe()
        process.executableURL = CLI.executable
        process.arguments = ["serve", "--port", "0"] + arguments
        process.environment = cli.environment()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first stdout line is the base URL; a blocking read waits for it (EOF if serve failed).
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        url = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}
