/// A migration file as the `EmbedMigrations` plugin compiled it into a module (the
/// engine's `Migrations/`, the sync service's `Migrations/Server/`).
public struct EmbeddedMigrationFile: Sendable {
    /// The file name in its folder, such as `0001_create_archive_objects.sql`.
    public let fileName: String
    /// The file's exact text.
    public let sql: String
    /// SHA-256 of `sql`, computed by the plugin's tool (`MigrationChecksum`).
    public let checksum: String

    /// A migration file named `fileName` with text `sql` and its SHA-256 `checksum`.
    public init(fileName: String, sql: String, checksum: String) {
        self.fileName = fileName
        self.sql = sql
        self.checksum = checksum
    }
}
