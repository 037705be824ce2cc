public import SQLite
import Foundation

/// An archive database file (or `:memory:`), opened, validated and migrated,
/// with its repositories: favorites, key-value entries and the onboarding flag.
///
/// ```swift
/// let database = try ArchiveDatabase(path: "favorites.sqlite3")
/// try database.favorites.create(object)
/// let stored = try database.favorites.storedIDs(among: [17, 33, 40])
/// ```
public struct ArchiveDatabase: Sendable {
    /// The connection every repository shares.
    public let queue: DatabaseQueue
    /// The favorites.
    public let favorites: SQLiteStoredArchiveDataRepository
    /// Typed key-value entries.
    public let keyValueStore: KeyValueStore
    /// The first-launch onboarding flag.
    public let onboarding: KeyValueOnboardingRepository

    /// Opens the database at `path`, creating it when missing (an empty file is a new database).
    ///
    /// Refuses, leaving the file byte for byte unchanged, a file that is not
    /// SQLite (`SQLiteError` ``ResultCode/notADatabase``), another application's
    /// database, one written by a newer version, or one whose applied migrations
    /// differ from the shipped ones (``MigrationError``).
    public init(path: String, configuration: Configuration = Configuration()) throws {
        try self.init(queue: DatabaseQueue(path: path, configuration: configuration, migrator: ArchiveMigrations.migrator()))
    }

    /// A private, migrated in-memory database: for tests and throwaway runs.
    public static func inMemory() throws -> ArchiveDatabase {
        try ArchiveDatabase(path: Database.inMemoryPath)
    }

    private init(queue: DatabaseQueue) {
        self.queue = queue
        self.favorites = SQLiteStoredArchiveDataRepository(queue: queue)
        self.keyValueStore = KeyValueStore(queue: queue)
        self.onboarding = KeyValueOnboardingRepository(store: keyValueStore)
    }

    // MARK: - Maintenance

    /// Reads which migrations the file at `path` has applied and which are pending,
    /// without creating, migrating or otherwise changing it.
    ///
    /// Throws, like opening, for a file that is not SQLite, another application's
    /// database or one written by a newer version.
    public static func migrationStatus(path: String) throws -> MigrationStatus {
        let migrator = try ArchiveMigrations.migrator()
        guard FileManager.default.fileExists(atPath: path) else {
            return MigrationStatus(applied: [], pending: migrator.migrations, fileExists: false)
        }
        var configuration = Configuration()
        configuration.readOnly = true
        let database = try Database(path: path, configuration: configuration)
        try migrator.validate(database)
        return MigrationStatus(
            applied: try migrator.appliedMigrations(in: database),
            pending: try migrator.pendingMigrations(in: database), fileExists: true)
    }

    /// Runs SQLite's integrity and foreign-key checks and counts the rows.
    public func integrityReport() throws -> IntegrityReport {
        try queue.read { db in
            var problems = try db.integrityCheck().filter { $0 != "ok" }
            problems += try db.fetchAll("PRAGMA foreign_key_check") { row in
                "foreign key violation in table \(try row.column(String.self, at: 0))"
            }
            let favorites = try db.fetchOne("SELECT count(*) FROM archive_objects") { try $0.column(Int.self, at: 0) } ?? 0
            let entries = try db.fetchOne("SELECT count(*) FROM key_value_store") { try $0.column(Int.self, at: 0) } ?? 0
            return IntegrityReport(problems: problems, favorites: favorites, keyValueEntries: entries)
        }
    }

    /// `PRAGMA data_version` of the connection: changes when another connection commits.
    /// Fronts poll it to notice changes made by other processes.
    public func dataVersion() throws -> Int {
        try queue.read { try $0.dataVersion() }
    }
}
