public import SQLite

/// The schema of the sync service's SQLite database: `Migrations/Server/*.sql`, compiled
/// into this module by the `EmbedMigrations` plugin.
public enum ServerMigrations {
    private static let parsed: Result<Migrator, any Error> = Result {
        try Migrator(migrations: embeddedMigrationFiles.map {
            try Migration(fileName: $0.fileName, sql: $0.sql, checksum: $0.checksum)
        })
    }

    /// A migrator for the shipped migrations.
    public static func migrator() throws -> Migrator {
        try parsed.get()
    }
}
