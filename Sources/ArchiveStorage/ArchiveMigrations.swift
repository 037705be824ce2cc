public import SQLite

/// The schema of an archive database: the `Migrations/*.sql` files compiled into this module.
public enum ArchiveMigrations {
    /// Parsed (and checksummed) once per process: opening a database is a hot path.
    private static let parsed: Result<Migrator, any Error> = Result {
        try Migrator(migrations: embeddedMigrationFiles.map { try Migration(fileName: $0.fileName, sql: $0.sql) })
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
