internal import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// An error reported by SQLite, or by this layer when a value does not fit.
///
/// It carries what a person needs to act: the primary and extended result
/// code, SQLite's own message, the SQL that failed and the database file.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (equal to the primary code when SQLite gave no extension).
    public let extendedResultCode: ResultCode
    /// SQLite's message (`sqlite3_errmsg`) or this layer's explanation.
    public let message: String
    /// The SQL that failed, when there was one.
    public let sql: String?
    /// The database file, when known (`:memory:` for in-memory databases).
    public let path: String?

    /// The primary result code, such as ``ResultCode/busy``.
    public var resultCode: ResultCode { extendedResultCode.primaryResultCode }

    /// Creates an error from its parts.
    public init(code: ResultCode, message: String, sql: String? = nil, path: String? = nil) {
        self.extendedResultCode = code
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// One line: what failed, where, and SQLite's words.
    public var description: String {
        var text = "SQLite error \(extendedResultCode.rawValue) (\(resultCode.explanation)): \(message)"
        if let path {
            text += " [database: \(path)]"
        }
        if let sql {
            // One line: the SQL's own newlines and indentation are folded.
            let folded = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            text += " [SQL: \(folded.count > 160 ? String(folded.prefix(160)) + "…" : folded)]"
        }
        if let advice { text += "; " + advice }
        return text
    }

    /// What a person can do about a failure of the disk under the database, or `nil`.
    var advice: String? {
        switch resultCode {
        case .ioError: "the disk failed under it: check the disk (dmesg), then try again"
        case .full: "the disk is full: free space, then try again"
        case .readOnly: "the file or its directory cannot be written (permissions, or a read-only or failing disk)"
        case .cannotOpen: "check that the file and its directory exist and can be written, and that the disk is healthy"
        default: nil
        }
    }

    /// The error SQLite recorded on a connection after `code` was returned.
    static func from(_ connection: OpaquePointer?, code: Int32, sql: String? = nil, path: String? = nil) -> SQLiteError {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        // sqlite3_extended_errcode may be stale if `code` came from a call that
        // does not set the connection's error (e.g. sqlite3_reset): prefer the
        // code that was actually returned when their primaries disagree.
        let resolved = (extended & 0xFF) == (code & 0xFF) ? extended : code
        var text = message
        // For I/O failures the operating system's reason is what a person can act on.
        let primary = resolved & 0xFF
        if let connection, [SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN].contains(primary) {
            let systemError = sqlite3_system_errno(connection)
            if systemError != 0 { text += " (\(String(cString: strerror(systemError))))" }
        }
        return SQLiteError(code: ResultCode(rawValue: resolved), message: text, sql: sql, path: path)
    }
}
