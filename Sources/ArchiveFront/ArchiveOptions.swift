public import ArgumentParser

/// The options both fronts take: where the database and the catalog are.
///
/// A command may declare them twice, on the root command and on a subcommand,
/// so that `archive --database X search` and `archive search --database X` both
/// work: ``merged(over:)`` lets the later ones win.
public struct ArchiveOptions: ParsableArguments, Sendable {
    /// `--database PATH`.
    @Option(name: Name.database, help: Help.database)
    public var database: String?

    /// `--api-url URL`.
    @Option(name: Name.apiURL, help: Help.apiURL)
    public var apiURL: String?

    /// `--timeout SECONDS`.
    @Option(name: Name.timeout, help: Help.timeout)
    public var timeout: Double?

    /// `--log-actions FILE`.
    @Option(name: Name.logActions, help: Help.logActions)
    public var logActions: String?

    /// No options given.
    public init() {}

    /// These options with the given values, as a front that declares them itself (`archive`'s
    /// `GlobalOptions`) hands them on.
    public init(database: String?, apiURL: String?, timeout: Double?, logActions: String?) {
        self.database = database
        self.apiURL = apiURL
        self.timeout = timeout
        self.logActions = logActions
    }

    /// The name of each option, for a front that declares the same options itself.
    public enum Name {
        /// `--database`.
        public static let database: NameSpecification = .long
        /// `--api-url`.
        public static let apiURL: NameSpecification = .customLong("api-url")
        /// `--timeout`.
        public static let timeout: NameSpecification = .long
        /// `--log-actions`.
        public static let logActions: NameSpecification = .customLong("log-actions")
    }

    /// The help of each option, for a front that declares the same options itself.
    public enum Help {
        /// `--database PATH`'s help.
        public static let database = ArgumentHelp(
            "The database file (env ARCHIVE_DATABASE; default $XDG_DATA_HOME/favorite-archive/favorites.sqlite3).",
            valueName: "path")
        /// `--api-url URL`'s help.
        public static let apiURL = ArgumentHelp(
            "A json-server-style catalog endpoint (env ARCHIVE_API_URL; default the bundled catalog).",
            valueName: "url")
        /// `--timeout SECONDS`'s help.
        public static let timeout = ArgumentHelp(
            "The most seconds one catalog request (default 10) or one request to a sync service (default 30) may take in all (env ARCHIVE_API_TIMEOUT).",
            valueName: "seconds")
        /// `--log-actions FILE`'s help.
        public static let logActions = ArgumentHelp(
            "Append one JSON line per action and per finished effect to this file (env ARCHIVE_LOG_ACTIONS; off by default).",
            valueName: "file")
    }

    /// Refuses an empty `--database` (it would silently open a throwaway database).
    public func validate() throws {
        try Self.validate(database: database, apiURL: apiURL, timeout: timeout, logActions: logActions)
    }

    /// Refuses values these options cannot take, as ``validate()`` does for parsed ones:
    /// an empty `--database`, `--log-actions` or `--api-url`, a timeout out of range.
    public static func validate(database: String?, apiURL: String?, timeout: Double?, logActions: String?) throws {
        if database?.isEmpty == true {
            throw ValidationError("--database needs a file path; an empty path is not a database")
        }
        if let timeout {
            do {
                _ = try ArchiveLocation(databaseFlag: nil, apiURLFlag: nil, apiTimeoutFlag: timeout, environment: [:])
            } catch {
                throw ValidationError("\(error)")
            }
        }
        if logActions?.isEmpty == true {
            throw ValidationError("--log-actions needs a file path")
        }
        if apiURL?.isEmpty == true {
            throw ValidationError("--api-url needs a URL such as http://127.0.0.1:3000")
        }
    }

    /// These options, with those of `earlier` (given before the subcommand) where these are unset.
    public func merged(over earlier: ArchiveOptions) -> ArchiveOptions {
        var merged = self
        merged.database = database ?? earlier.database
        merged.apiURL = apiURL ?? earlier.apiURL
        merged.timeout = timeout ?? earlier.timeout
        merged.logActions = logActions ?? earlier.logActions
        return merged
    }

    /// Where the database and catalog are: flags, then the environment, then the defaults.
    public func location() throws -> ArchiveLocation {
        try ArchiveLocation(databaseFlag: database, apiURLFlag: apiURL, apiTimeoutFlag: timeout, actionLogFlag: logActions)
    }
}
