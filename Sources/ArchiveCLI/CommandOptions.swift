import ArchiveFront

/// The options every `archive` command takes, as plain values: what
/// ``GlobalOptions`` holds once those after the subcommand's name are merged
/// over those before it.
///
/// A command runs from these rather than from ArgumentParser's property
/// wrappers, so that ``CommandLineShortcut`` can run a command it parsed itself.
struct CommandOptions: Equatable, Sendable {
    /// `--database PATH`.
    var database: String?
    /// `--api-url URL`.
    var apiURL: String?
    /// `--timeout SECONDS`.
    var timeout: Double?
    /// `--log-actions FILE`.
    var logActions: String?
    /// `--json`.
    var json = false

    /// No options given.
    init() {}

    /// The options ArgumentParser parsed (already merged).
    init(_ options: GlobalOptions) {
        database = options.archive.database
        apiURL = options.archive.apiURL
        timeout = options.archive.timeout
        logActions = options.archive.logActions
        json = options.json
    }

    /// Refuses values the options cannot take, as ArgumentParser's validation of ``ArchiveOptions`` does.
    func validate() throws {
        try ArchiveOptions.validate(database: database, apiURL: apiURL, timeout: timeout, logActions: logActions)
    }

    /// Where the database and catalog are: flags, then the environment, then the defaults.
    func location() throws -> ArchiveLocation {
        try ArchiveLocation(databaseFlag: database, apiURLFlag: apiURL, apiTimeoutFlag: timeout, actionLogFlag: logActions)
    }

    /// Opens the database (as `access` says) and, when `catalog` is `.needed`, the catalog.
    func openSession(_ access: ArchiveSession.DatabaseAccess = .createIfMissing, catalog: ArchiveSession.CatalogUse) throws -> ArchiveSession {
        try ArchiveSession(location: location(), database: access, catalog: catalog)
    }
}
