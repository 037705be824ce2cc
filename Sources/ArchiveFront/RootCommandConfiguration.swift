public import ArgumentParser
import Synchronization

/// A root command's configuration, made so that ArgumentParser skips its search
/// for `--generate-completion-script` on a command line that cannot hold it.
///
/// ArgumentParser looks for that option on every run by parsing the command line
/// twice more, as two pseudo-commands, through reflection. In a cold `archive add`
/// that was half of the parse and a seventh of the process's CPU samples (`perf
/// record`): a generic type the reflection meets for the first time costs a
/// protocol-conformance lookup that scans all of the binary's conformance records
/// (about 9,400, most from the standard library, Foundation and SwiftNIO).
/// It skips the search for a root command whose configuration names a
/// `_superCommandName`, a name that otherwise only prefixes help and usage text.
///
/// So the root's `configuration` carries one only while
/// ``ArgumentParser/AsyncParsableCommand/terminalSafeMain()`` parses a command line
/// in which no argument starts with `--generate-completion-script`: with the option,
/// ArgumentParser parses as it always does, and help, usage and error messages, all
/// built after the parse, never see the name.
public enum RootCommandConfiguration {
    /// Whether a parse without a completion-script request is under way.
    private static let parsingWithoutCompletionRequest = Atomic<Bool>(false)

    /// The option whose search is skipped.
    static let completionScriptOption = "--generate-completion-script"

    /// `configuration`, as the root command's `configuration` returns it: with a
    /// super-command name while ``parse(_:arguments:)`` runs without a request.
    public static func resolved(_ configuration: CommandConfiguration) -> CommandConfiguration {
        guard parsingWithoutCompletionRequest.load(ordering: .relaxed) else { return configuration }
        var parsing = configuration
        parsing._superCommandName = configuration.commandName ?? ""
        return parsing
    }

    /// Parses `arguments` (without the program's name) as `command`'s command line.
    static func parse<Command: AsyncParsableCommand>(
        _ command: Command.Type, arguments: [String]
    ) async throws -> any ParsableCommand {
        let requestsScript = arguments.contains { $0.hasPrefix(completionScriptOption) }
        parsingWithoutCompletionRequest.store(!requestsScript, ordering: .relaxed)
        defer { parsingWithoutCompletionRequest.store(false, ordering: .relaxed) }
        return try await command.asyncParseAsRoot(arguments)
    }
}
