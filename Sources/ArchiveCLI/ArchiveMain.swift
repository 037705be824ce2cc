import ArchiveFront
import ArchiveStartup

/// The entry point of `archive`: ``ArchiveCommand`` on the main actor, the main
/// thread serving the main queue (``MainThreadRunLoop``) instead of an async `main`.
@main
enum ArchiveMain {
    /// Runs the command; an error's message reaches stderr with its control characters made visible.
    ///
    /// `search`, `add` and `remove` command lines that ``CommandLineShortcut`` recognizes skip
    /// ArgumentParser's parse, and run their store's effects on the main thread
    /// (``EffectExecution``): such a command awaits one thing at a time, and starting
    /// libdispatch's worker threads was about an eighth of its cold start
    /// (docs/PERFORMANCE.md). Every other command keeps the global executor's threads.
    static func main() {
        let shortcut = CommandLineShortcut(arguments: Array(CommandLine.arguments.dropFirst()))
        MainThreadRunLoop.run {
            // A short command awaits one thing at a time: its store's effects run on the main
            // thread too, and the process starts no thread of its own.
            if shortcut != nil { EffectExecution.preferred = MainQueueTaskExecutor.shared }
            await ArchiveCommand.terminalSafeMain(shortcut: { _ in runner(for: shortcut) })
        }
    }

    /// `shortcut`'s command as the function ``ArchiveCommand/terminalSafeMain(shortcut:)`` runs, if any.
    @MainActor
    private static func runner(for shortcut: CommandLineShortcut?) -> (@MainActor () async throws -> Void)? {
        guard let shortcut else { return nil }
        return { try await shortcut.run() }
    }
}
