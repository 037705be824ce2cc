internal import CSQLite

/// The storage class of a SQLite value: what `typeof()` returns.
public enum StorageClass: String, Sendable {
    /// `NULL`.
    case null = "NULL"
    /// A signed 64-bit `INTEGER`.
    case integer = "INTEGER"
    /// An 8-byte IEEE `REAL`.
    case real = "REAL"
    /// `TEXT`.
    case text = "TEXT"
    /// `BLOB`.
    case blob = "BLOB"

    init(sqliteType: Int32) {
        switch sqliteType {
        case SQLITE_INTEGER: self = .integer
        case SQLITE_FLOAT: self = .real
        case SQLITE_TEXT: self = .text
        case SQLITE_BLOB: self = .blob
        default: self = .null
        }
    }
}
