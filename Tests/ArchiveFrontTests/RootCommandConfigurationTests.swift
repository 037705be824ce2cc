@testable import ArchiveFront
import ArgumentParser
import Testing

/// A root command that records, when ArgumentParser validates it (at the end of a
/// parse), the super-command name its configuration had at that moment.
private struct RecordingRoot: AsyncParsableCommand {
    static var configuration: CommandConfiguration { RootCommandConfiguration.resolved(base) }
    private static let base = CommandConfiguration(commandName: "recording")

    @Option var name = "x"

    /// The super-command name seen during the last parse (`"none"` for `nil`).
    nonisolated(unsafe) static var seenDuringParse: String?

    func validate() throws {
        // Written by the one test that parses this type, on its own task: no other access.
        Self.seenDuringParse = Self.configuration._superCommandName ?? "none"
    }

    func run() async throws {}
}

@Suite(.timeLimit(.minutes(5)))
struct RootCommandConfigurationTests {
    /// The parse skips ArgumentParser's completion-script search (a super-command
    /// name is set) only while it runs and only when no argument asks for a
    /// script; before and after, the configuration is the one help shows.
    @Test func theSearchIsSkippedOnlyDuringAParseWithoutARequest() async throws {
        #expect(RecordingRoot.configuration._superCommandName == nil)

        let command = try await RootCommandConfiguration.parse(RecordingRoot.self, arguments: ["--name", "y"])
        #expect((command as? RecordingRoot)?.name == "y")
        #expect(RecordingRoot.seenDuringParse == "recording")
        #expect(RecordingRoot.configuration._superCommandName == nil)

        // With a request, ArgumentParser's own path runs and answers with the script.
        RecordingRoot.seenDuringParse = nil
        for arguments in [["--generate-completion-script", "bash"], ["--generate-completion-script=zsh"], ["--generate-completion-script"]] {
            do {
                _ = try await RootCommandConfiguration.parse(RecordingRoot.self, arguments: arguments)
                Issue.record("\(arguments) parsed as a command instead of asking for a completion script")
            } catch {
                let message = RecordingRoot.fullMessage(for: error)
                if arguments.count == 1, arguments[0] == "--generate-completion-script" {
                    // Without a shell name ArgumentParser reads $SHELL: the script for a
                    // shell it knows, its own refusal otherwise (CI runs without SHELL).
                    // Either is its own answer, never this command's parse.
                    #expect(
                        RecordingRoot.exitCode(for: error) == .success
                            || message.contains("Can't autodetect a supported shell"),
                        "\(arguments): \(message)")
                } else {
                    #expect(RecordingRoot.exitCode(for: error) == .success, "\(arguments)")
                    #expect(message.contains("recording"), "\(arguments)")
                }
            }
            #expect(RecordingRoot.configuration._superCommandName == nil)
        }
        #expect(RecordingRoot.seenDuringParse == nil)

        // A failed parse leaves the configuration as help shows it, too.
        await #expect(throws: (any Error).self) {
            _ = try await RootCommandConfiguration.parse(RecordingRoot.self, arguments: ["--bogus"])
        }
        #expect(RecordingRoot.configuration._superCommandName == nil)
        do {
            _ = try await RootCommandConfiguration.parse(RecordingRoot.self, arguments: ["--bogus"])
        } catch {
            let message = RecordingRoot.fullMessage(for: error)
            #expect(message.contains("Usage: recording"))
            #expect(!message.contains("recording recording"))
        }
    }
}
