public import SQLite

/// The schema of an archive database: the `Migrations/*.sql` files compiled into this module.
public enum ArchiveMigrations {
    /// Parsed once per process: opening a database is a hot path. (The checksums
    /// were computed when the migrations were embedded, at build time.)
    private static let parsed: Result<Migrator, any Error> = Result {
        try Migrator(migrations: embeddedMigrationFiles.map {
            try Migration(fileName: $0.fileName, sql: $0.sql, checksum: $0.checksum)
        })
    }

    /// Every shipped migration, in order of version.
    public static func all() throws -> [Migration] {
        try parsed.get().migrations
    }

    /// A migrator for the shipped migrations.
    public static func migrator() throws -> Migrator {
        try parsed.get()
    }
}
