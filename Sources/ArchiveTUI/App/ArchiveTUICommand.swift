import ArchiveCore
import ArgumentParser

/// `archive-tui`: the Archive screen in a terminal.
@main
struct ArchiveTUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive-tui",
        abstract: "The Archive screen in a terminal: search dishes, heart favorites, browse them.",
        discussion: "Press ? inside for the keys. Shares the database and catalog of `archive`.")

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The database file (env ARCHIVE_DATABASE; default $XDG_DATA_HOME/favorite-archive/favorites.sqlite3).",
            valueName: "path"))
    var database: String?

    @Option(
        name: .customLong("api-url"),
        help: ArgumentHelp("A json-server-style catalog endpoint (env ARCHIVE_API_URL; default the bundled catalog).", valueName: "url"))
    var apiURL: String?

    func run() async throws {
        let location = ArchiveLocation(databaseFlag: database, apiURLFlag: apiURL)
        try await Self.start(location: location)
    }

    @MainActor
    private static func start(location: ArchiveLocation) async throws {
        let session = try ArchiveSession(location: location)
        try await TUIApp(session: session).run()
    }
}
