import ArchiveServer
import ArchiveStorage
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// Where the service keeps its data: given before or after the subcommand's name.
struct ServerStorageOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The service's SQLite database (default: $XDG_DATA_HOME/favorite-archive/server.sqlite3; env ARCHIVE_SERVER_DATABASE).",
        valueName: "path"))
    var database: String?

    /// These options over those given before the subcommand.
    func merged(over earlier: ServerStorageOptions) -> ServerStorageOptions {
        var merged = self
        merged.database = database ?? earlier.database
        return merged
    }

    /// The database path: `--database`, `ARCHIVE_SERVER_DATABASE`, or the data directory's
    /// `server.sqlite3` (its directory created, private to the user, when missing).
    func databasePath() throws -> String {
        if let database { return database }
        var environment: [String: String] = [:]
        for name in ["ARCHIVE_SERVER_DATABASE", "XDG_DATA_HOME", "HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        if let path = environment["ARCHIVE_SERVER_DATABASE"], !path.isEmpty { return path }
        let path = DataDirectory.path(of: "server.sqlite3", environment: environment)
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        try ServerCLIError.creatingDirectory(directory)
        return path
    }

    /// The service's database, opened (and created, and migrated).
    func open() throws -> ServerDatabase {
        let path = try databasePath()
        do {
            return try ServerDatabase(path: path)
        } catch {
            throw ServerCLIError("cannot open the service's database \(path): \(error)")
        }
    }
}
