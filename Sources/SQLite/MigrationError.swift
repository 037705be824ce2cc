/// Why a database could not be validated or migrated. Each case names the file,
/// the version(s) involved and what to do.
public enum MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A migration file is not named `NNNN_snake_name.sql`.
    case invalidFileName(String)
    /// Two migrations share a version.
    case duplicateVersion(Int, names: [String])
    /// The database has applied a migration this build does not know: a newer program wrote
    /// it, or (a number below the latest known) something else changed the table.
    case unknownAppliedMigration(path: String, applied: Int, appliedName: String, latestKnown: Int)
    /// An applied migration's recorded checksum differs from the SQL this build ships.
    case checksumMismatch(path: String, version: Int, name: String, recorded: String, shipped: String)
    /// The file is a SQLite database of some other application (tables, but no `schema_migrations`).
    case foreignDatabase(path: String, tables: [String])
    /// A migration's SQL failed; the database was left as it was before the migration began.
    case migrationFailed(path: String, version: Int, name: String, underlying: SQLiteError)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .invalidFileName(let name):
            return "migration file '\(name)' is not named NNNN_snake_name.sql (four or more digits, an underscore, lowercase letters, digits and underscores); rename it"
        case .duplicateVersion(let version, let names):
            return "migration version \(version) is used by more than one file (\(names.joined(separator: ", "))); give each migration its own number"
        case .unknownAppliedMigration(let path, let applied, let appliedName, let latestKnown) where applied > latestKnown:
            return "database \(path) was written by a newer version of this program: it has migration \(applied) (\(appliedName)) applied, but this build knows migrations up to \(latestKnown). Upgrade the program, or use another database file; the file was not changed"
        case .unknownAppliedMigration(let path, let applied, let appliedName, let latestKnown):
            // Below the latest known, yet unknown (a negative or skipped number): no version
            // of this program records it, so the file was changed by something else.
            return "database \(path) records migration \(applied) (\(appliedName)), which no version of this program has (it knows migrations 1 to \(latestKnown)): another program changed its schema_migrations table. Use another database file, or restore this one from an export; the file was not changed"
        case .checksumMismatch(let path, let version, let name, let recorded, let shipped):
            return "database \(path) applied migration \(version) (\(name)) with different SQL (checksum \(recorded.prefix(12))…) than this build ships (\(shipped.prefix(12))…). An applied migration must never be edited: restore the file in Migrations/ and add a new migration instead; the database was not changed"
        case .foreignDatabase(let path, let tables):
            let list = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
            return "\(path) is a SQLite database of another application (tables: \(list)) and has no schema_migrations table; refusing to touch it. Use another database file"
        case .migrationFailed(let path, let version, let name, let underlying):
            return "migration \(version) (\(name)) failed on \(path) and was rolled back, leaving the database as it was: \(underlying.message)"
        }
    }
}
