import ArchiveFront
import ArgumentParser

/// `archive-tui`: the Archive screen in a terminal.
@main
struct ArchiveTUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive-tui",
        abstract: "The Archive screen in a terminal: search dishes, heart favorites, browse them.",
        discussion: "Press ? inside for the keys. Shares the database, catalog and options of `archive`.")

    @OptionGroup var options: ArchiveOptions

    /// Runs the command; an error's message reaches stderr with its control characters made visible.
    static func main() async {
        await terminalSafeMain()
    }

    func run() async throws {
        // The screen is the terminal's while the TUI runs: a stopped log is reported after.
        try await Self.start(session: ArchiveSession(location: options.location(), actionLogFailure: { _ in }))
    }

    @MainActor
    private static func start(session: ArchiveSession) async throws {
        try await TUIApp(session: session).run()
        if let failure = session.actionLog?.failure { ArchiveSession.warnOnStandardError(failure) }
    }
}
