import ArchiveFront

/// The entry point of `archive`: ``ArchiveCommand`` on the main actor, the main
/// thread serving the main queue (``MainThreadRunLoop``) instead of an async `main`.
@main
enum ArchiveMain {
    /// Runs the command; an error's message reaches stderr with its control characters made visible.
    ///
    /// `search`, `add` and `remove` command lines that ``CommandLineShortcut`` recognizes skip
    /// ArgumentParser's parse, and run all their tasks on the main thread: such a command
    /// awaits one thing at a time, and starting libdispatch's worker threads was about a
    /// quarter of its cold start (docs/PERFORMANCE.md). Every other command keeps the global executor's threads.
    static func main() {
        let shortcut = CommandLineShortcut(arguments: Array(CommandLine.arguments.dropFirst()))
        MainThreadRunLoop.run(keepingTasksOnMainThread: shortcut != nil) {
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
