import Foundation
import TestSupport
import Testing

/// `docs/openapi.yaml` is valid OpenAPI 3.1 (openapi-spec-validator, PyPI), and schemathesis
/// (PyPI) holds the real `archive-server` to it, both backends, with a device's
/// token: it reads the document the server serves (`/v1/openapi.yaml`) and sends requests it
/// generates from it, valid and invalid, single and in linked sequences (a push, then the
/// same device's pull), checking every answer: no 500, no status, header, content type or body
/// the document does not describe, invalid requests refused, methods not served 405 with
/// `Allow`, operations with a token refusing requests without one.
///
/// Repeatable: a fixed seed, one worker, no example database; `SCHEMATHESIS_EXAMPLES` (40) sets
/// the examples per operation, for a longer run on demand. Left out: `positive_data_acceptance`
/// (a valid-looking request the service refuses: its rules go past what a schema says, byte
/// lengths, a stamp at most a day ahead of its clock, a token bound to its first device) and
/// `GET /v1/sync/events` (an accepted stream stays open for ten minutes; OpenAPIDocumentTests
/// and the event tests answer for it).
///
/// `.ci/run` runs this suite in a phase of its own (`phase contract`, its time printed): it
/// sets `FAVORITE_ARCHIVE_CONTRACT_PHASE=1` for its `swift test` phase, which leaves it out.
/// schemathesis missing is a failure, never a skip: `bash scripts/install-python-tools.sh`.
@Suite(.blockingWork, .timeLimit(.minutes(5)), .enabled(if: ProcessInfo.processInfo.environment["FAVORITE_ARCHIVE_CONTRACT_PHASE"] != "1", "in .ci/run's contract phase"))
struct SchemathesisTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of schemathesis's `st`, as `scripts/install-python-tools.sh` installs it.
    static func command() throws -> String {
        let located = try ChildProcess.run("/bin/bash", [root.appendingPathComponent("scripts/install-python-tools.sh").path, "--path", "st"])
        let path = located.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard located.status == 0, FileManager.default.isExecutableFile(atPath: path) else {
            throw ServiceFailed(stderr: "schemathesis is not installed (\(path)): run bash scripts/install-python-tools.sh (.ci/run does)")
        }
        return path
    }

    @Test func theDocumentIsValidOpenAPI() throws {
        let validator = URL(fileURLWithPath: try Self.command()).deletingLastPathComponent().appendingPathComponent("openapi-spec-validator").path
        let checked = try ChildProcess.run(validator, [OpenAPIContract.file.path])
        #expect(checked.status == 0 && checked.stdout.contains(": OK"), "docs/openapi.yaml is not valid OpenAPI 3.1: \(checked.stdout)\(checked.stderr)")
    }

    @Test(arguments: ServiceBackend.allCases)
    func theServiceAnswersAsItsDocumentSays(backend: ServiceBackend) throws {
        let st = try Self.command()
        let server = try ServiceProcess(backend)
        let token = try server.addUser("alice")
        let examples = ProcessInfo.processInfo.environment["SCHEMATHESIS_EXAMPLES"] ?? "40"
        var environment = ServiceProcess.environment(server.directory)
        environment["NO_COLOR"] = "1"
        environment["SCHEMATHESIS_TOKEN"] = token
        // In the test's directory: whatever schemathesis writes goes with it.
        let run = try ChildProcess.run(
            "/bin/sh",
            [
                "-c", #"cd "$1" && shift && exec "$@" -H "Authorization: Bearer $SCHEMATHESIS_TOKEN""#, "sh", server.directory.path(""),
                st, "run", server.url + "/v1/openapi.yaml", "--url", server.url,
                "--checks", "all", "--exclude-checks", "positive_data_acceptance", "--exclude-path", "/v1/sync/events",
                "--seed", "2026", "--max-examples", examples, "--workers", "1", "--generation-database", "none",
                "--request-timeout", "30", "--no-color",
            ],
            environment: environment, timeout: .seconds(240))
        let summary = run.stdout.components(separatedBy: "\n").filter { $0.contains("generated,") || $0.hasPrefix("Seed:") }
        print("SchemathesisTests (\(backend)): \(summary.joined(separator: "; "))")
        #expect(run.status == 0, "schemathesis found answers the document does not allow:\n\(Self.failures(in: run.stdout))\n\(run.stderr.suffix(2_000))")
        #expect(run.stdout.contains("Stateful"), "the stateful phase did not run: \(run.stdout.suffix(2_000))")
        _ = server.stop()
    }

    /// The report's failures and summary (the start of its output is the progress).
    static func failures(in output: String) -> String {
        guard let start = output.range(of: "= FAILURES =") ?? output.range(of: "= ERRORS =") else { return String(output.suffix(6_000)) }
        return String(output[start.lowerBound...].prefix(12_000))
    }
}
