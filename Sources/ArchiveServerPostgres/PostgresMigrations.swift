import Logging
public import PostgresNIO
import SQLite

/// The schema of the service on PostgreSQL: `Migrations/Postgres/*.sql`, compiled into
/// this module by the `EmbedMigrations` plugin, numbered and checksummed like the engine's.
///
/// ``migrate(_:location:logger:)`` applies the missing ones in one transaction under an
/// advisory lock (two servers starting at once migrate once), and refuses a database that
/// has a migration this build does not ship, or one whose checksum differs.
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
            var applied: [Int: String] = [:]
            for try await (version, checksum) in try await connection.query(
                "SELECT version, checksum FROM archive_server_migrations", logger: logger
            ).decode((Int, String).self) {
                applied[version] = checksum
            }
            for (version, checksum) in applied {
                guard let shipped = migrations.first(where: { $0.version == version }) else {
                    throw PostgresStorageError.newerSchema(version: version, location: location)
                }
                guard shipped.checksum == checksum else { throw PostgresStorageError.migrationChanged(version: version, location: location) }
            }
            for migration in migrations where applied[migration.version] == nil {
                for statement in statements(of: migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO archive_server_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(migration.checksum))
                    """, logger: logger)
                logger.notice("migrated", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
            }
        }
    }

    /// The statements of a migration file: its text without `--` comments, split at each
    /// `;` that ends a line (PostgreSQL's extended protocol takes one statement a query).
    static func statements(of sql: String) -> [String] {
        var statements: [String] = [], current = ""
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            let code = line.firstRange(of: "--").map { line[..<$0.lowerBound] } ?? line[...]
            let trimmed = code.trimmingTrailingSpaces
            guard !trimmed.isEmpty else { continue }
            if trimmed.hasSuffix(";") {
                current += trimmed.dropLast()
                statements.append(current)
                current = ""
            } else {
                current += trimmed + "\n"
            }
        }
        if !current.allSatisfy(\.isWhitespace) { statements.append(current) }
        return statements
    }
}

private extension Substring {
    var trimmingTrailingSpaces: Substring {
        var text = self
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return text
    }
}
