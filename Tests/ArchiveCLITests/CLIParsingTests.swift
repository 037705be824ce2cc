import Foundation
import TestSupport
import Testing

/// Both fronts' parses as ArgumentParser makes them, on the real binaries: a
/// request gets its completion script, and help and usage name each command once.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLIParsingTests {
    static let tui = BuiltProduct.url(named: "archive-tui")

    @Test func bothFrontsStillWriteCompletionScripts() throws {
        let cli = try CLI()
        let bash = try cli.run(["--generate-completion-script", "bash"], useDatabase: false)
        #expect(bash.status == 0, "\(bash.stderr)")
        #expect(bash.stdout.contains("complete -o filenames -F _archive archive"))
        let zsh = try cli.run(["--generate-completion-script=zsh"], useDatabase: false)
        #expect(zsh.status == 0, "\(zsh.stderr)")
        #expect(zsh.stdout.hasPrefix("#compdef archive"))
        let fish = try ChildProcess.run(Self.tui.path, ["--generate-completion-script", "fish"], environment: cli.environment())
        #expect(fish.status == 0, "\(fish.stderr)")
        #expect(fish.stdout.contains("archive-tui"))
        // After `--` the option is an argument: a search keyword, answered as a search.
        let afterTerminator = try cli.run(["search", "--", "--generate-completion-script"])
        #expect(afterTerminator.status == 0, "\(afterTerminator.stderr)")
        #expect(!afterTerminator.stdout.contains("compdef"))
    }

    @Test func helpAndUsageNameEachCommandOnce() throws {
        let cli = try CLI()
        let help = try cli.run(["search", "--help"], useDatabase: false)
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: archive search"))
        let helpSubcommand = try cli.run(["help", "add"], useDatabase: false)
        #expect(helpSubcommand.stdout.contains("USAGE: archive add"))
        let root = try cli.run(["--help"], useDatabase: false)
        #expect(root.stdout.contains("See 'archive help <subcommand>'"))
        let usageError = try cli.run(["search", "--bogus"], useDatabase: false)
        #expect(usageError.status == 64)
        #expect(usageError.stderr.contains("Usage: archive search"))
        let tuiError = try ChildProcess.run(Self.tui.path, ["--bogus"], environment: cli.environment())
        #expect(tuiError.status == 64)
        #expect(tuiError.stderr.contains("Usage: archive-tui"))
        for output in [help.stdout, helpSubcommand.stdout, root.stdout, usageError.stderr, tuiError.stderr] {
            #expect(!output.contains("archive archive") && !output.contains("archive-tui archive-tui"), "\(output)")
        }
    }
}
