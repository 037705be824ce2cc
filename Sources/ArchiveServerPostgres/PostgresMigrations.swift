import Logging
public import PostgresNIO
import SQLite

/// The schema of the service on PostgreSQL: `Migrations/Postgres/*.sql`, compiled into
/// this module by the `EmbedMigrations` plugin, numbered and checksummed like the engine's.
///
/// ``migrate(_:location:logger:)`` applies the missing ones in one transaction under an
/// advisory lock (two servers starting at once migrate once), and refuses a database that
/// has a migration this build does not ship, or one whose checksum differs (`Migrator.validate`, the check of every SQLite database too).
public enum PostgresMigrations {
    /// The shipped migrations, in order.
    static func shipped() throws -> [Migration] {
        try embeddedMigrationFiles.map { try Migration(fileName: $0.fileName, sql: $0.sql, checksum: $0.checksum) }
            .sorted { $0.version < $1.version }
    }

    /// The key of the advisory lock held while migrating (any constant unique to this program).
    static let lockKey: Int64 = 0x6661_5F73_796E_6301

    /// Brings the database `client` reaches up to the shipped schema.
    public static func migrate(_ client: PostgresClient, location: String, logger: Logger) async throws {
        let migrations = try shipped()
        try await PostgresTransaction.run(client, while: "migrating \(location)", logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS archive_server_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: [AppliedMigration] = []
            for try await (version, name, checksum, appliedAt) in try await connection.query(
                "SELECT version, name, checksum, applied_at::text FROM archive_server_migrations ORDER BY version", logger: logger
            ).decode((Int, String, String, String).self) {
                applied.append(AppliedMigration(version: version, name: name, checksum: checksum, appliedAt: appliedAt))
            }
            // The same check as every SQLite database's: each applied migration known, with
            // the shipped checksum.
            try Migrator(migrations: migrations).validate(applied, path: location)
            let done = Set(applied.map(\.version))
            for migration in migrations where !done.contains(migration.version) {
                try await apply(migration.sql, on: connection, logger: logger)
                try await connection.query("""
                    INSERT INTO archive_server_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(migration.checksum))
                    """, logger: logger)
                logger.notice("migrated", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
            }
        }
    }

    /// Runs the statements of the migration text `sql` on `connection`, in order
    /// (``PostgresStatements``: one a query).
    static func apply(_ sql: String, on connection: PostgresConnection, logger: Logger) async throws {
        for statement in PostgresStatements.split(sql) {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }
}
