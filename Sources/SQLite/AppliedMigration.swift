/// A row of `schema_migrations`: a migration recorded as applied to a database.
public struct AppliedMigration: Sendable, Hashable {
    /// The migration's version.
    public let version: Int
    /// The migration's name when it was applied.
    public let name: String
    /// The checksum of the SQL that was applied.
    public let checksum: String
    /// When it was applied, as ISO 8601 UTC text.
    public let appliedAt: String

    /// Creates a record from its parts.
    public init(version: Int, name: String, checksum: String, appliedAt: String) {
        self.version = version
        self.name = name
        self.checksum = checksum
        self.appliedAt = appliedAt
    }
}
