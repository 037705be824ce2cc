import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser

/// The options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The database file (env ARCHIVE_DATABASE; default $XDG_DATA_HOME/favorite-archive/favorites.sqlite3).",
            valueName: "path"))
    var database: String?

    @Option(
        name: .customLong("api-url"),
        help: ArgumentHelp(
            "A json-server-style catalog endpoint (env ARCHIVE_API_URL; default the bundled catalog).",
            valueName: "url"))
    var apiURL: String?

    @Flag(name: .long, help: "Print JSON (stable shapes, documented in README).")
    var json = false

    /// Where the database and catalog are, flag beating environment beating default.
    var location: ArchiveLocation {
        ArchiveLocation(databaseFlag: database, apiURLFlag: apiURL)
    }

    /// Opens the database and the catalog.
    func openSession() throws -> ArchiveSession {
        try ArchiveSession(location: location)
    }
}
