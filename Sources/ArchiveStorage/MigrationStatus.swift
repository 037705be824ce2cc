import SQLite

/// Which shipped migrations a database file has applied, and which are pending.
public struct MigrationStatus: Sendable, Hashable {
    /// A migration recorded in the file.
    public struct Applied: Sendable, Hashable {
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
    public struct Pending: Sendable, Hashable {
        /// The version.
        public let version: Int
        /// The name.
        public let name: String
    }

    /// The migrations recorded in the file, in order.
    public let applied: [Applied]
    /// The shipped migrations the file has not applied yet (any command that opens it applies them).
    public let pending: [Pending]
    /// Whether the file exists yet.
    public let fileExists: Bool

    init(applied: [AppliedMigration], pending: [Migration], fileExists: Bool) {
        self.applied = applied.map { Applied(version: $0.version, name: $0.name, checksum: $0.checksum, appliedAt: $0.appliedAt) }
        self.pending = pending.map { Pending(version: $0.version, name: $0.name) }
        self.fileExists = fileExists
    }
}
