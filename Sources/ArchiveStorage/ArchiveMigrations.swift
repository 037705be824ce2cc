public import SQLite

/// The schema of an archive database: the `Migrations/*.sql` files compiled into this module.
public enum ArchiveMigrations {
    /// Every shipped migration, in order of version.
    public static func all() throws -> [Migration] {
        try embeddedMigrationFiles.map { try Migration(fileName: $0.fileName, sql: $0.sql) }
    }

    /// A migrator for the shipped migrations.
    public static func migrator() throws -> Migrator {
        try Migrator(migrations: all())
    }
}
