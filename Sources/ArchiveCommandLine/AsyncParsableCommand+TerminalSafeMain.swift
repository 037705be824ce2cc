public import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

extension AsyncParsableCommand {
    /// Parses the command line and runs the command, as ArgumentParser's `main()`
    /// does, but prints an error's message with its control characters made visible.
    ///
    /// An error may quote a path, a value read from an import file or a server's
    /// reason: an escape sequence in it must never reach the terminal. Help and
    /// other clean exits are printed on stdout as they are; an error's message goes
    /// to stderr through ``TerminalText/writeLineToStandardError(_:)``, and the exit
    /// code is ArgumentParser's (64 for a usage error, 1 for a failure).
    ///
    /// SIGXFSZ is ignored, so that an output past the file-size limit is an error with a
    /// message, like a full disk.
    ///
    /// It runs on the main actor, where ``MainThreadRunLoop`` (or an async `main`)
    /// calls it, so a shortcut's command starts without a hop through the global executor.
    ///
    /// - Parameter shortcut: Given the arguments (without the program's name),
    ///   the command to run without ArgumentParser's parse, or `nil` to parse
    ///   them; its errors are reported as the parsed command's would be.
    @MainActor
    public static func terminalSafeMain(
        shortcut: (_ arguments: [String]) -> (@MainActor () async throws -> Void)? = { _ in nil }
    ) async {
        // Past a file-size limit (`ulimit -f`) a write fails with EFBIG, which every output
        // path reports ("cannot write to standard output: File too large", exit 1), instead
        // of SIGXFSZ killing the process with a truncated file and no message.
        signal(SIGXFSZ, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            if let run = shortcut(arguments) {
                try await run()
            } else {
                var command = try await Self.asyncParseAsRoot(arguments)
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            }
            try StandardOutputError.flushStandardOutput()
        } catch {
            var code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code.isSuccess {
                if !message.isEmpty { print(message) }
                do {
                    try StandardOutputError.flushStandardOutput()
                } catch {
                    TerminalText.writeLineToStandardError("Error: \(error)")
                    code = .failure
                }
            } else if !message.isEmpty {
                TerminalText.writeLineToStandardError(message)
            }
            Glibc.exit(code.rawValue)
        }
    }
}
