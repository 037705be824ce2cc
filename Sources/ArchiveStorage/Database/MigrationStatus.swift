import SQLite

/// Which shipped migrations a database file has applied, and which are pending.
///
/// Encodes as `{"database", "applied": [{"version", "name", "checksum", "appliedAt"}],
/// "pending": [{"version", "name"}]}`, the shape `archive migrations --json` prints.
public struct MigrationStatus: Sendable, Hashable, Encodable {
    /// A migration recorded in the file (the storage layer's view of the SQLite
    /// layer's `schema_migrations` row, so that no front needs to import SQLite).
    public struct Applied: Sendable, Hashable, Encodable {
        /// The version.
        public let version: Int
        /// The name.
        public let name: String
        /// SHA-256 of the SQL that was applied.
        public let checksum: String
        /// When it was applied (ISO 8601, UTC).
        public let appliedAt: String
    }

    /// A shipped migration the file has not applied.
    public struct Pending: Sendable, Hashable, Encodable {
        /// The version.
        public let version: Int
        /// The name.
        public let name: String
    }

    /// The database file.
    public let database: String
    /// The migrations recorded in the file, in order.
    public let applied: [Applied]
    /// The shipped migrations the file has not applied yet (any command that opens it applies them).
    public let pending: [Pending]

    private enum CodingKeys: String, CodingKey {
        case database, applied, pending
    }

    init(database: String, applied: [AppliedMigration], pending: [Migration]) {
        self.database = database
        self.applied = applied.map { Applied(version: $0.version, name: $0.name, checksum: $0.checksum, appliedAt: $0.appliedAt) }
        self.pending = pending.map { Pending(version: $0.version, name: $0.name) }
    }
}
