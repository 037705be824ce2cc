public import SQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArchiveSyncModel

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
    package let queue: DatabaseQueue
    /// The favorites.
    public let favorites: SQLiteStoredArchiveDataRepository
    /// Typed key-value entries.
    public let keyValueStore: KeyValueStore
    /// The first-launch onboarding flag.
    public let onboarding: KeyValueOnboardingRepository
    /// The settings (onboarding flag, install date, last search).
    public let settings: KeyValueSettingsRepository

    /// Opens the database at `path`, creating it when missing (an empty file is a new database).
    ///
    /// Refuses, leaving the file byte for byte unchanged, a file that is not
    /// SQLite (`SQLiteError` ``ResultCode/notADatabase``), another application's
    /// database, one written by a newer version, or one whose applied migrations
    /// differ from the shipped ones (``MigrationError``).
    /// Anything that is not a regular file (a device such as `/dev/null`, a FIFO,
    /// a directory) is refused before SQLite sees it, and nothing is created beside it.
    ///
    /// A database created by this call records its ``ArchiveSetting/installDate``.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        try self.init(path: path, configuration: configuration, wallClock: WallClock.system)
    }

    /// The database at `path`, its changes stamped by `wallClock` (Unix milliseconds): for
    /// tests that give each device a clock of its own.
    package init(
        path: String, configuration: Configuration = Configuration(), wallClock: @escaping @Sendable () -> Int64
    ) throws {
        if path != Database.inMemoryPath { try Self.checkDatabasePath(path) }
        var createdAt: Date?
        try self.init(queue: DatabaseQueue(
            path: path, configuration: configuration, migrator: ArchiveMigrations.migrator(),
            prepare: { database in
                // A file that is not trusted is read only if it holds nothing that runs by
                // itself: archive makes no view and no trigger.
                if !configuration.trustsSchema { try Self.refuseViewsAndTriggers(in: database) }
                try database.register(FavoritesSearchIndex.tokenizer)
                // Decided before the migrations create the schema: a file without one is new
                // (another application's database is refused by the validation that follows).
                if try !database.tableExists("schema_migrations") { createdAt = Date() }
            }), wallClock: wallClock)
        if let createdAt, !configuration.readOnly { try settings.recordInstallDate(createdAt) }
        // Migrations 0004 and 0005 put the favorites already stored in the waiting list:
        // their runs are built now, once, by the open that applied them (no other open
        // pays for a check; a new file has none to build).
        if createdAt == nil, !FavoritesSearchIndex.migrationsQueueingFavorites.isDisjoint(with: queue.migratedVersions) {
            try favorites.indexWaitingFavorites()
        }
    }

    /// Throws ``ArchiveStorageError/untrustedSchema(path:kind:name:)`` for the first view or
    /// trigger in `database`'s schema.
    private static func refuseViewsAndTriggers(in database: Database) throws {
        let found = try database.fetchOne(
            "SELECT type, name FROM sqlite_schema WHERE type IN ('view', 'trigger') ORDER BY type, name LIMIT 1"
        ) { row in (try row.column(String.self, at: 0), try row.column(String.self, at: 1)) }
        if let (kind, name) = found { throw ArchiveStorageError.untrustedSchema(path: database.path, kind: kind, name: name) }
    }

    /// The path that names a private in-memory database (SQLite's `:memory:`).
    public static let inMemoryPath = Database.inMemoryPath

    /// A private, migrated in-memory database: for tests and throwaway runs.
    public static func inMemory() throws -> ArchiveDatabase {
        try ArchiveDatabase(path: Database.inMemoryPath)
    }

    private init(queue: DatabaseQueue, wallClock: @escaping @Sendable () -> Int64 = WallClock.system) throws {
        self.queue = queue
        self.favorites = try SQLiteStoredArchiveDataRepository(queue: queue, wallClock: wallClock)
        self.keyValueStore = KeyValueStore(queue: queue)
        self.onboarding = KeyValueOnboardingRepository(store: keyValueStore)
        self.settings = KeyValueSettingsRepository(store: keyValueStore)
    }

    /// Checks that `path` can hold a database: not empty, not ending in `/`, either
    /// missing or a regular file (symbolic links are followed) with one hard link
    /// (``ArchiveStorageError/hardLinked(path:links:)``), and with a file name
    /// that leaves room for the files SQLite makes beside it. Throws
    /// ``ArchiveStorageError/notADatabaseFile(path:kind:)`` or
    /// ``ArchiveStorageError/nameTooLong(path:bytes:needed:limit:)``.
    public static func checkDatabasePath(_ path: String) throws(ArchiveStorageError) {
        do {
            try DatabasePath.check(path)
        } catch {
            switch error {
            case .notADatabaseFile(let path, let kind): throw .notADatabaseFile(path: path, kind: kind)
            case .nameTooLong(let path, let bytes, let needed, let limit): throw .nameTooLong(path: path, bytes: bytes, needed: needed, limit: limit)
            case .hardLinked(let path, let links): throw .hardLinked(path: path, links: links)
            }
        }
    }

    // MARK: - Maintenance

    /// Reads which migrations the file at `path` has applied and which are pending,
    /// without creating, migrating or otherwise changing it; a missing file is
    /// ``ArchiveStorageError/noDatabase(path:)``.
    ///
    /// Throws, like opening, for a file that is not SQLite, another application's
    /// database or one written by a newer version.
    public static func migrationStatus(path: String) throws -> MigrationStatus {
        let migrator = try ArchiveMigrations.migrator()
        try checkDatabasePath(path)
        guard FileManager.default.fileExists(atPath: path) else { throw ArchiveStorageError.noDatabase(path: path) }
        var configuration = Configuration()
        configuration.readOnly = true
        let database = try Database(path: path, configuration: configuration)
        try migrator.validate(database)
        return MigrationStatus(
            database: path, applied: try migrator.appliedMigrations(in: database),
            pending: try migrator.pendingMigrations(in: database))
    }

    /// Runs SQLite's integrity and foreign-key checks, the archive's own rules
    /// (every `stored_at` within ``StoredArchiveObject/storedAtRange``; the search
    /// index decodes and covers every stored favorite), and counts the rows, all in
    /// one snapshot.
    public func integrityReport() throws -> IntegrityReport {
        try queue.snapshot { try Self.integrityReport(of: $0, path: queue.path) }
    }

    /// Checks the file at `path` reading only: nothing is created, migrated or repaired.
    ///
    /// A file that cannot be opened (damaged, truncated, another application's) is
    /// reported as a problem rather than thrown, so a report is always printed;
    /// a missing file is ``ArchiveStorageError/noDatabase(path:)``.
    public static func integrityReport(path: String) throws -> IntegrityReport {
        try checkDatabasePath(path)
        guard FileManager.default.fileExists(atPath: path) else { throw ArchiveStorageError.noDatabase(path: path) }
        var configuration = Configuration()
        configuration.readOnly = true
        do {
            let database = try Database(path: path, configuration: configuration)
            try database.register(FavoritesSearchIndex.tokenizer)
            try ArchiveMigrations.migrator().validate(database)
            return try database.transaction(.deferred) { try integrityReport(of: database, path: path) }
        } catch {
            return IntegrityReport(database: path, problems: ["cannot read the database: \(error)"], favorites: 0, keyValueEntries: 0)
        }
    }

    private static func integrityReport(of db: Database, path: String) throws -> IntegrityReport {
        var problems = try db.integrityCheck().filter { $0 != "ok" }
        problems += try db.fetchAll("PRAGMA foreign_key_check") { row in
            "foreign key violation in table \(try row.column(String.self, at: 0))"
        }
        var favorites = 0
        if try db.tableExists("archive_objects") {
            favorites = try SQLiteStoredArchiveDataRepository.count(in: db)
            let range = StoredArchiveObject.storedAtRange
            problems += try db.fetchAll(
                "SELECT id, CAST(stored_at AS TEXT) FROM archive_objects WHERE typeof(stored_at) <> 'integer' OR stored_at NOT BETWEEN ? AND ? ORDER BY id LIMIT 100",
                range.lowerBound, range.upperBound
            ) { row in
                "favorite \(try row.column(Int.self, at: 0)) has stored_at \(try row.column(String.self, at: 1)), outside the years 0001 to 9999 (export and listing stop at it): remove it and store it again"
            }
            problems += try SearchRunStore.problems(in: db)
            if try db.tableExists("sync_state") { problems += try SyncStore.problems(in: db) }
        }
        var entries = 0
        var installDate: Date?
        if try db.tableExists("key_value_store") {
            entries = try db.fetchOne("SELECT count(*) FROM key_value_store") { try $0.column(Int.self, at: 0) } ?? 0
            let stored = try db.fetchOne(
                "SELECT value FROM key_value_store WHERE key = ? AND type = ?",
                ArchiveSetting.installDate.name, KeyValueType.date.rawValue
            ) { try $0.column(KeyValueStoredValue.self, at: 0) }
            installDate = stored.flatMap { try? Date(keyValueStoredValue: $0) }
            // A setting's entry of the wrong type (written by another program) fails every
            // command that reads the settings: named here, with the way out.
            for setting in ArchiveSetting.all {
                let stored = try db.fetchOne("SELECT type, value FROM key_value_store WHERE key = ?", setting.name) { row in
                    (type: try row.column(String.self, at: 0), value: try row.column(KeyValueStoredValue.self, at: 1))
                }
                guard let entry = stored else { continue }
                let readable: Bool
                switch setting.type {
                case .bool: readable = entry.type == setting.type.rawValue && (try? Bool(keyValueStoredValue: entry.value)) != nil
                case .date: readable = entry.type == setting.type.rawValue && (try? Date(keyValueStoredValue: entry.value)) != nil
                default: readable = entry.type == setting.type.rawValue && (try? String(keyValueStoredValue: entry.value)) != nil
                }
                if !readable {
                    problems.append("setting \(setting.name) holds a value of type \(entry.type) that cannot be read as \(setting.type.rawValue) (another program wrote it), so commands that read the settings fail: `archive settings reset \(setting.name)` removes it")
                }
            }
        }
        return IntegrityReport(database: path, problems: problems, favorites: favorites, keyValueEntries: entries, installDate: installDate)
    }

    /// `PRAGMA data_version` of the connection: changes when another connection commits.
    /// Fronts poll it to notice changes made by other processes.
    public func dataVersion() throws -> Int {
        try queue.read { try $0.dataVersion() }
    }
}
