public import SQLite

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
}
