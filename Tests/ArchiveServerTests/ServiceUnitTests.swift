import Foundation
import TestSupport
import Testing

/// `deploy/archive-server.service`, the systemd unit `scripts/install.sh --service`
/// installs: `systemd-analyze verify` finds nothing to say about it (an unknown key, a
/// missing binary, a bad sandboxing option), and its command line starts the real server.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServiceUnitTests {
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../deploy/archive-server.service").standardized

    /// The unit with its ExecStart on the built binary (as the install script writes it).
    func installedUnit(in directory: TemporaryDirectory) throws -> (path: String, text: String) {
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/archive-server", with: ServiceProcess.executable.path)
        let path = directory.path("archive-server.service")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, text)
    }

    @Test func systemdAnalyzeVerifiesTheUnitWithoutAWord() throws {
        let analyze = try Prerequisite.path(of: "systemd-analyze", debianPackage: "systemd")
        let directory = try TemporaryDirectory()
        let (path, text) = try installedUnit(in: directory)
        let verified = try ChildProcess.run(analyze, ["verify", path], timeout: Deadline.standard)
        #expect(verified.status == 0 && verified.stdout.isEmpty && verified.stderr.isEmpty, "\(verified.stdout)\(verified.stderr)")
        // The check can fail: a misspelt key is reported.
        try text.replacingOccurrences(of: "Restart=on-failure", with: "Restartt=on-failure").write(toFile: path, atomically: true, encoding: .utf8)
        let misspelt = try ChildProcess.run(analyze, ["verify", path], timeout: Deadline.standard)
        #expect(misspelt.stderr.contains("Unknown key 'Restartt'"), "\(misspelt.stderr)")
    }

    @Test func theUnitsCommandLineStartsTheServer() throws {
        let directory = try TemporaryDirectory()
        let (_, text) = try installedUnit(in: directory)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=/") })
        // systemd's ${STATE_DIRECTORY}, and a free port for the test.
        let arguments = line.dropFirst("ExecStart=".count)
            .replacingOccurrences(of: "${STATE_DIRECTORY}", with: directory.url.path)
            .replacingOccurrences(of: "--port 8080", with: "--port 0")
            .split(separator: " ").map(String.init)
        let server = try ChildProcess(arguments[0], Array(arguments.dropFirst()), environment: ServiceProcess.environment(directory), streamingStdout: true)
        #expect(server.nextLine()?.hasPrefix("http://127.0.0.1:") == true)
        server.signal(SIGTERM)
        #expect(server.wait().status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.path("server.sqlite3")))
    }
}
