#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ArchiveCommandLine
import ArchiveSyncWire
import SystemPackage

/// Where a front finds its database and catalog: a flag beats an environment
/// variable, which beats the default. Shared by the CLI and the TUI.
public struct ArchiveLocation: Sendable, Hashable {
    /// The environment variable naming the database file.
    public static let databaseVariable = "ARCHIVE_DATABASE"
    /// The environment variable naming the catalog's base URL.
    public static let apiURLVariable = "ARCHIVE_API_URL"
    /// The environment variable giving the catalog's timeout in seconds.
    public static let apiTimeoutVariable = "ARCHIVE_API_TIMEOUT"
    /// The environment variable naming the action log file.
    public static let actionLogVariable = "ARCHIVE_LOG_ACTIONS"
    /// The catalog's timeout when none is given.
    public static let defaultAPITimeout = Duration.seconds(10)

    /// The database file.
    public let databasePath: String
    /// The catalog's base URL, or `nil` for the bundled catalog.
    public let apiURL: String?
    /// The total time one catalog request may take.
    public let apiTimeout: Duration
    /// The total time one request to a sync service may take: the timeout given
    /// (`--timeout` or the variable), else ``SyncAPI/defaultRequestTimeout`` (a pull page
    /// is larger than a catalog answer).
    public let syncTimeout: Duration
    /// Where every action is logged, or `nil` for no log.
    public let actionLogPath: String?

    /// Resolves the locations from the flags (`nil` when not given) and `environment`.
    /// An empty environment variable counts as unset.
    ///
    /// The default database is `$XDG_DATA_HOME/favorite-archive/favorites.sqlite3`,
    /// with `~/.local/share` when `XDG_DATA_HOME` is unset, empty or relative
    /// (the XDG Base Directory specification says to ignore a relative one).
    /// Throws ``ArchiveLocationError`` for a timeout that is not a positive number.
    public init(
        databaseFlag: String?, apiURLFlag: String?, apiTimeoutFlag: Double? = nil, actionLogFlag: String? = nil,
        environment: [String: String] = ArchiveLocation.processEnvironment
    ) throws {
        func variable(_ name: String) -> String? { OptionSource.variable(name, in: environment) }
        actionLogPath = OptionSource.value(flag: actionLogFlag, variable: Self.actionLogVariable, in: environment)
        databasePath = OptionSource.value(flag: databaseFlag, variable: Self.databaseVariable, in: environment)
            ?? Self.defaultDatabasePath(environment: environment)
        apiURL = OptionSource.value(flag: apiURLFlag, variable: Self.apiURLVariable, in: environment)
        if let seconds = apiTimeoutFlag {
            apiTimeout = try Self.timeout(seconds, source: "--timeout")
            syncTimeout = apiTimeout
        } else if let text = variable(Self.apiTimeoutVariable) {
            guard let seconds = Double(text) else {
                throw ArchiveLocationError.invalidTimeout(text, source: Self.apiTimeoutVariable)
            }
            apiTimeout = try Self.timeout(seconds, source: Self.apiTimeoutVariable)
            syncTimeout = apiTimeout
        } else {
            apiTimeout = Self.defaultAPITimeout
            syncTimeout = SyncAPI.defaultRequestTimeout
        }
    }

    private static func timeout(_ seconds: Double, source: String) throws -> Duration {
        // Up to a day: a longer wait is a mistake, and larger values overflow Duration's arithmetic.
        guard seconds.isFinite, seconds > 0, seconds <= 86_400 else {
            throw ArchiveLocationError.invalidTimeout(String(seconds), source: source)
        }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// The variables the locations are read from, as this process has them.
    ///
    /// Read one by one with `getenv`, not through `ProcessInfo`: its first use
    /// builds the process's whole environment and more, which a cold `archive`
    /// command paid for five variables (`perf record`).
    public static var processEnvironment: [String: String] {
        OptionSource.environment([databaseVariable, apiURLVariable, apiTimeoutVariable, actionLogVariable, "XDG_DATA_HOME", "HOME"])
    }

    /// `$XDG_DATA_HOME/favorite-archive/favorites.sqlite3`, or under `~/.local/share`.
    public static func defaultDatabasePath(environment: [String: String]) -> String {
        DataDirectory.path(of: "favorites.sqlite3", environment: environment)
    }

    /// The directory that holds the database file: where it is created, and where an
    /// import spools (`.` for a bare file name, `/` for a file in the root).
    public var databaseDirectory: String { Self.directory(containing: databasePath) }

    /// The directory that holds the file at `path`, as POSIX `dirname` says (`a/b/` is `a`).
    public static func directory(containing path: String) -> String {
        let directory = FilePath(path).removingLastComponent()
        return directory.isEmpty ? "." : directory.string
    }
}

/// A location setting that cannot be used.
public enum ArchiveLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The catalog timeout is not a number of seconds between 0 and 86,400.
    case invalidTimeout(String, source: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .invalidTimeout(let text, let source):
            return "\(source) '\(text)' is not a timeout: give a number of seconds greater than 0 and at most 86400, such as 10 or 2.5"
        }
    }
}
