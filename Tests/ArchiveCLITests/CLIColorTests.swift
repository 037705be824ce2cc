import Foundation
import TestSupport
import Testing

/// Colors reach stdout only when it is a terminal, and not when `NO_COLOR` is set
/// (to anything, empty too) or `TERM` is `dumb`. The real binary runs under
/// `script`, which gives it a pseudo-terminal.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLIColorTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
        #expect(try cli.run(["add", "17"]).status == 0)
    }

    /// The output of `archive search チーズ --category 洋食` on a terminal, with `extra` in the environment.
    func searchOnATerminal(_ extra: [String: String]) throws -> String {
        var environment = cli.environment()
        environment["NO_COLOR"] = nil
        environment["TERM"] = "xterm-256color"
        environment.merge(extra) { $1 }
        let command = "\(CLI.executable.path) search チーズ --category 洋食 --database \(cli.database)"
        let result = try ChildProcess.run(try Prerequisite.path(of: "script", debianPackage: "bsdutils"), ["-qec", command, "/dev/null"], environment: environment, input: .null, timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("ハンバーグ"), "\(result.stdout)")  // dish 17, its チーズ maybe styled
        return result.stdout
    }

    @Test func aTerminalGetsColorsUnlessNoColorOrADumbTerminalSaysNot() throws {
        #expect(try searchOnATerminal([:]).contains("\u{1B}["))
        #expect(!(try searchOnATerminal(["NO_COLOR": "1"]).contains("\u{1B}[")))
        #expect(!(try searchOnATerminal(["NO_COLOR": ""]).contains("\u{1B}[")))
        #expect(!(try searchOnATerminal(["TERM": "dumb"]).contains("\u{1B}[")))
        // Not a terminal: never, whatever the environment says.
        let piped = try ChildProcess.run(
            CLI.executable.path, ["search", "チーズ", "--category", "洋食", "--database", cli.database],
            environment: cli.environment(["TERM": "xterm-256color"]).filter { $0.key != "NO_COLOR" },
            input: .null, timeout: .seconds(60))
        #expect(piped.status == 0)
        #expect(!piped.stdout.contains("\u{1B}["))
    }
}
