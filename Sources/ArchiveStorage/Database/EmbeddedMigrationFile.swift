/// A migration file as the `EmbedMigrations` plugin compiled it into this module.
struct EmbeddedMigrationFile: Sendable {
    /// The file name in `Migrations/`, such as `0001_create_archive_objects.sql`.
    let fileName: String
    /// The file's exact text.
    let sql: String
    /// SHA-256 of `sql`, computed by the plugin's tool (`MigrationChecksum`).
    let checksum: String
}
