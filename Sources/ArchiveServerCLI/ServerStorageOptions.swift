import ArchiveCommandLine
import ArchiveServerStorage
import ArchiveServerSQLite
import ArchiveServer
import ArchiveServerPostgres
import ArgumentParser
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Where the service keeps its data: given before or after the subcommand's name.
struct ServerStorageOptions: ParsableArguments {
    /// The variable naming the SQLite database.
    static let databaseVariable = "ARCHIVE_SERVER_DATABASE"
    /// The variable naming the PostgreSQL database.
    static let postgresVariable = "ARCHIVE_SERVER_POSTGRES"

    @Option(name: .long, help: ArgumentHelp(
        "The service's SQLite database (default: $XDG_DATA_HOME/favorite-archive/server.sqlite3; env ARCHIVE_SERVER_DATABASE).",
        valueName: "path"))
    var database: String?

    @Option(name: .long, help: ArgumentHelp(
        "Keep the data in PostgreSQL instead: postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…], or ?host=/socket/directory (env ARCHIVE_SERVER_POSTGRES); the password from PGPASSWORD or a password file (PGPASSFILE, ~/.pgpass), as libpq finds it, never on the command line.",
        valueName: "url"))
    var postgres: String?

    /// These options over those given before the subcommand.
    func merged(over earlier: ServerStorageOptions) -> ServerStorageOptions {
        var merged = self
        merged.database = database ?? earlier.database
        merged.postgres = postgres ?? earlier.postgres
        return merged
    }

    /// The PostgreSQL to use: `--postgres`, or `ARCHIVE_SERVER_POSTGRES` when no
    /// `--database` is given; `nil` for the embedded database.
    func postgresLocation() throws -> PostgresLocation? {
        if database != nil, postgres != nil {
            throw ValidationError("--database and --postgres name two places for the service's data: give one")
        }
        let environment = OptionSource.environment([Self.databaseVariable, Self.postgresVariable])
        var url = postgres
        if url == nil, database == nil, let value = OptionSource.variable(Self.postgresVariable, in: environment) {
            // Both variables set: which store the data goes to must not be a guess.
            if OptionSource.variable(Self.databaseVariable, in: environment) != nil {
                throw ValidationError("ARCHIVE_SERVER_DATABASE and ARCHIVE_SERVER_POSTGRES name two places for the service's data: unset one, or give --database or --postgres")
            }
            url = value
        }
        guard let url else { return nil }
        let location: PostgresLocation
        do {
            location = try PostgresLocation(url: url)
        } catch {
            throw ServerCLIError("\(error)")
        }
        Self.warn(about: location, fromOption: postgres != nil ? "--postgres" : nil, variable: Self.postgresVariable)
        return location
    }

    /// Says on stderr what a person should know of where `location`'s password came from:
    /// a password in the URL of `option` (on the command line, which every local user reads
    /// in /proc/PID/cmdline for as long as the process runs; `nil`: the URL came from the
    /// environment), and the password file's notes. `variable` may hold the whole URL instead.
    static func warn(about location: PostgresLocation, fromOption option: String?, variable: String?) {
        if let option, location.urlHasPassword {
            StandardStream.error(
                "warning: the PostgreSQL password is on the command line (\(option)), where every user of this machine can read it: "
                    + "give the URL without it and the password in PGPASSWORD or a password file (PGPASSFILE, ~/.pgpass, mode 600)"
                    + (variable.map { ", or the whole URL in \($0) (docs/OPERATIONS.md)" } ?? "") + "\n")
        }
        for note in location.notes { StandardStream.error("warning: \(note)\n") }
    }

    /// The database path: `--database`, `ARCHIVE_SERVER_DATABASE`, or the data directory's
    /// `server.sqlite3` (its directory created, private to the user, when missing).
    func databasePath(creatingDirectory: Bool = true) throws -> String {
        let environment = OptionSource.environment([Self.databaseVariable, "XDG_DATA_HOME", "HOME"])
        if let path = OptionSource.value(flag: database, variable: Self.databaseVariable, in: environment) { return path }
        let path = DataDirectory.path(of: "server.sqlite3", environment: environment)
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if creatingDirectory { try ServerCLIError.creatingDirectory(directory) }
        return path
    }

    /// The service's database, opened (and created, and migrated); with `creating` false, a
    /// database that does not exist yet is an error and nothing is created (a listing reads
    /// only, as `archive`'s do).
    func open(creating: Bool = true) throws -> ServerDatabase {
        let path = try databasePath(creatingDirectory: creating)
        if !creating, access(path, F_OK) != 0 {
            throw ServerCLIError("no database at \(path); nothing was created (check --database or \(Self.databaseVariable); `archive-server users add NAME` creates one)")
        }
        do {
            return try ServerDatabase(path: path)
        } catch {
            throw ServerCLIError("cannot open the service's database \(path): \(error)")
        }
    }

    /// Runs `body` with the users of the chosen storage (PostgreSQL's pool running for it);
    /// with `creating` false, a SQLite database that does not exist is not made.
    func withUsers<Result: Sendable>(logger: Logger, creating: Bool = true, _ body: (any UserDirectory) async throws -> Result) async throws -> Result {
        guard let location = try postgresLocation() else { return try await body(UserStore(database: try open(creating: creating))) }
        return try await PostgresSyncStorage.with(location, logger: logger) { storage in try await body(storage) }
    }
}
