import Foundation
import TestSupport
import Testing

/// A command whose standard output cannot take what it writes fails, saying so,
/// instead of exiting 0 over an incomplete output: a full disk behind a
/// redirection (`/dev/full`), a closed descriptor. The real binary, through `sh`.
@Suite(.timeLimit(.minutes(5)))
struct CLIStandardOutputTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
        #expect(try cli.run(["add", "17"]).status == 0)
        #expect(try cli.run(["add", "21"]).status == 0)
    }

    /// Runs `archive ARGUMENTS --database DB` with standard output redirected as `redirection` says.
    func run(_ arguments: [String], redirection: String) throws -> CLI.Result {
        let command = #"exec "$0" "$@" "# + redirection
        return try ChildProcess.run(
            "/bin/sh", ["-c", command, CLI.executable.path] + arguments + ["--database", cli.database],
            environment: cli.environment(), input: .null, timeout: .seconds(60))
    }

    @Test(arguments: [["search", "チーズ"], ["--json", "search", "チーズ"], ["favorites"], ["--json", "favorites"], ["--help"]])
    func aFullDiskBehindStandardOutputFailsTheCommand(arguments: [String]) throws {
        let result = try run(arguments, redirection: "> /dev/full")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write to standard output: No space left on device"), "\(result.stderr)")
    }

    /// Standard output closed: SQLite keeps the database off descriptors 0-2, so
    /// nothing printed can land in it; the command fails and the database is whole.
    @Test(arguments: [["search", "チーズ"], ["--json", "search", "チーズ"], ["--json", "add", "33"]])
    func aClosedStandardOutputFailsTheCommandAndLeavesTheDatabaseWhole(arguments: [String]) throws {
        let result = try run(arguments, redirection: ">&-")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write to standard output"), "\(result.stderr)")
        let check = try cli.run(["check"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let ids = try cli.run(["--json", "favorites"])
        #expect(ids.stdout.contains(#""id":17,"#) && ids.stdout.contains(#""id":21,"#), "\(ids.stdout)")
    }
}
