import ArchiveFront
import ArgumentParser

/// `archive-tui`: the Archive screen in a terminal.
@main
struct ArchiveTUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive-tui",
        abstract: "The Archive screen in a terminal: search dishes, heart favorites, browse them.",
        discussion: """
            Press ? inside for the keys. Shares the database, catalog and options of `archive`. \
            With a sync server kept (archive sync --server URL --token-stdin keeps it, its token \
            and its --ca-file), the TUI syncs with it: the token comes from ARCHIVE_SYNC_TOKEN, \
            else the token file beside the database (never from the arguments, which other \
            local users read); the service's certificate is checked against --ca-file, else \
            ARCHIVE_SYNC_CA_FILE, else the CA file kept with the server, else the system's \
            trusted authorities.
            """)

    @OptionGroup var options: ArchiveOptions

    @Option(name: .customLong("sync-every"), help: ArgumentHelp(
        "With a sync server kept (archive settings set syncServer URL): sync at start and then this often; 0: only on ^S.",
        valueName: "seconds"))
    var syncEvery: Double = 300

    @OptionGroup var service: SyncServiceOptions

    func validate() throws {
        guard syncEvery.isFinite, syncEvery == 0 || (10...86_400).contains(syncEvery) else {
            throw ValidationError("--sync-every must be 0 (never) or between 10 and 86400 seconds, got \(syncEvery)")
        }
    }

    /// Runs the command; an error's message reaches stderr with its control characters made visible.
    static func main() async {
        await terminalSafeMain()
    }

    func run() async throws {
        // The screen is the terminal's while the TUI runs: a stopped log is reported after.
        var session = try ArchiveSession(location: options.location(), actionLogFailure: { _ in })
        service.apply(to: &session)
        try await Self.start(session: session, syncInterval: syncEvery > 0 ? .milliseconds(Int(syncEvery * 1000)) : nil)
    }

    @MainActor
    private static func start(session: ArchiveSession, syncInterval: Duration?) async throws {
        try await TUIApp(session: session, syncInterval: syncInterval).run()
        if let failure = session.actionLog?.failure { ArchiveSession.warnOnStandardError(failure) }
    }
}
