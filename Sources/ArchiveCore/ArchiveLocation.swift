public import Foundation

/// Where a front finds its database and catalog: a flag beats an environment
/// variable, which beats the default. Shared by the CLI and the TUI.
public struct ArchiveLocation: Sendable, Hashable {
    /// The environment variable naming the database file.
    public static let databaseVariable = "ARCHIVE_DATABASE"
    /// The environment variable naming the catalog's base URL.
    public static let apiURLVariable = "ARCHIVE_API_URL"

    /// The database file.
    public let databasePath: String
    /// The catalog's base URL, or `nil` for the bundled catalog.
    public let apiURL: String?

    /// Resolves the locations from the flags (`nil` when not given) and `environment`.
    ///
    /// The default database is `$XDG_DATA_HOME/favorite-archive/favorites.sqlite3`,
    /// with `~/.local/share` when `XDG_DATA_HOME` is unset or empty.
    public init(databaseFlag: String?, apiURLFlag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let path = databaseFlag ?? environment[Self.databaseVariable].flatMap({ $0.isEmpty ? nil : $0 }) {
            databasePath = path
        } else {
            databasePath = Self.defaultDatabasePath(environment: environment)
        }
        apiURL = apiURLFlag ?? environment[Self.apiURLVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `$XDG_DATA_HOME/favorite-archive/favorites.sqlite3`, or under `~/.local/share`.
    public static func defaultDatabasePath(environment: [String: String]) -> String {
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = (home as NSString).appendingPathComponent(".local/share")
        }
        return ((dataHome as NSString).appendingPathComponent("favorite-archive") as NSString)
            .appendingPathComponent("favorites.sqlite3")
    }
}
