/// Runs an ordered list of ``Migration``s on a database and guards it against
/// files written by other programs or versions.
///
/// Each pending migration runs in its own `IMMEDIATE` transaction together with
/// its row in `schema_migrations` (version, name, checksum, applied_at): it is
/// applied and recorded whole, or not at all. Several processes opening the
/// same new file at once are safe: each re-reads the applied list inside its
/// transaction and skips what another one already applied.
public struct Migrator: Sendable {
    /// The migrations, in increasing order of version.
    public let migrations: [Migration]

    /// The name of the table that records applied migrations.
    public static let tableName = "schema_migrations"

    /// Creates a migrator; throws ``MigrationError/duplicateVersion(_:names:)`` when two migrations share a version.
    public init(migrations: [Migration]) throws {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.version == next.version {
            throw MigrationError.duplicateVersion(next.version, names: [previous.name, next.name])
        }
        self.migrations = sorted
    }

    /// The highest version this migrator knows, 0 when it has none.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    // MARK: - Reading

    /// The migrations recorded as applied in `database`, in increasing order of version.
    public func appliedMigrations(in database: Database) throws -> [AppliedMigration] {
        guard try database.tableExists(Self.tableName) else { return [] }
        return try database.fetchAll(
            "SELECT version, name, checksum, applied_at FROM \(Self.tableName) ORDER BY version"
        ) { row in
            AppliedMigration(
                version: try row.column(at: 0), name: try row.column(at: 1),
                checksum: try row.column(at: 2), appliedAt: try row.column(at: 3))
        }
    }

    /// The migrations of this migrator that `database` has not applied yet.
    public func pendingMigrations(in database: Database) throws -> [Migration] {
        let applied = Set(try appliedMigrations(in: database).map(\.version))
        return migrations.filter { !applied.contains($0.version) }
    }

    /// Checks, reading only, that `database` may be migrated by this build.
    ///
    /// Throws ``MigrationError/foreignDatabase(path:tables:)``,
    /// ``MigrationError/unknownAppliedMigration(path:applied:appliedName:latestKnown:)`` or
    /// ``MigrationError/checksumMismatch(path:version:name:recorded:shipped:)``.
    public func validate(_ database: Database) throws {
        if try !database.tableExists(Self.tableName) {
            let tables = try database.fetchAll(
                "SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
            ) { try $0.column(String.self, at: 0) }
            if !tables.isEmpty {
                throw MigrationError.foreignDatabase(path: database.path, tables: tables)
            }
            return
        }
        try validate(try appliedMigrations(in: database), path: database.path)
    }

    /// Checks the migrations a database records as applied (`applied`, read by whoever
    /// reads that database: SQLite's `schema_migrations` here, PostgreSQL's table in the
    /// service's PostgreSQL backend) against the ones this build ships: each must be known
    /// and carry the shipped checksum. The one check of every database the project migrates.
    ///
    /// Throws ``MigrationError/unknownAppliedMigration(path:applied:appliedName:latestKnown:)``
    /// or ``MigrationError/checksumMismatch(path:version:name:recorded:shipped:)``, naming
    /// the database as `path`.
    public func validate(_ applied: [AppliedMigration], path: String) throws {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for record in applied {
            guard let migration = known[record.version] else {
                throw MigrationError.unknownAppliedMigration(
                    path: path, applied: record.version, appliedName: record.name, latestKnown: latestVersion)
            }
            guard migration.checksum == record.checksum else {
                throw MigrationError.checksumMismatch(
                    path: path, version: record.version, name: record.name,
                    recorded: record.checksum, shipped: migration.checksum)
            }
        }
    }

    // MARK: - Migrating

    /// Applies every pending migration in order, each in its own transaction with its record.
    ///
    /// A failing migration is rolled back whole and reported as
    /// ``MigrationError/migrationFailed(path:version:name:underlying:)``;
    /// the migrations before it stay applied. Returns the versions this call applied
    /// (not those another process applied meanwhile), in order.
    @discardableResult
    public func migrate(_ database: Database) throws -> [Int] {
        if try pendingMigrations(in: database).isEmpty { return [] }
        var appliedHere: [Int] = []
        for migration in migrations {
            try database.transaction(.immediate) {
                try database.execute("""
                    CREATE TABLE IF NOT EXISTS \(Self.tableName) (
                        version    INTEGER PRIMARY KEY NOT NULL,
                        name       TEXT    NOT NULL,
                        checksum   TEXT    NOT NULL,
                        applied_at TEXT    NOT NULL
                    )
                    """)
                // Re-read inside the write lock: another process may have migrated meanwhile.
                let applied = try appliedMigrations(in: database)
                try validate(applied, path: database.path)
                if applied.contains(where: { $0.version == migration.version }) { return }
                do {
                    try database.execute(migration.sql)
                } catch let error as SQLiteError {
                    throw MigrationError.migrationFailed(
                        path: database.path, version: migration.version, name: migration.name, underlying: error)
                }
                try database.execute(
                    """
                    INSERT INTO \(Self.tableName) (version, name, checksum, applied_at)
                    VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    """,
                    migration.version, migration.name, migration.checksum)
                appliedHere.append(migration.version)
            }
        }
        return appliedHere
    }
}
