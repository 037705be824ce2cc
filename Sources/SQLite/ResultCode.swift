internal import CSQLite

/// A SQLite result code, primary (`SQLITE_BUSY`) or extended (`SQLITE_BUSY_SNAPSHOT`).
///
/// Matching with `~=` lets a primary code match all of its extended codes, as in
/// GRDB: `case ResultCode.busy` matches `SQLITE_BUSY_TIMEOUT` too.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The raw `int` SQLite returned.
    public let rawValue: Int32

    /// Wraps a raw SQLite result code.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code (the low 8 bits) of an extended result code.
    public var primaryResultCode: ResultCode {
        ResultCode(rawValue: rawValue & 0xFF)
    }

    /// SQLite's English name for the code, such as "database is locked".
    public var explanation: String {
        String(cString: sqlite3_errstr(rawValue))
    }

    /// The code and SQLite's explanation, for messages.
    public var description: String {
        "\(rawValue) (\(explanation))"
    }

    /// A primary code matches itself and every extended code built on it;
    /// an extended code matches only itself.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        if pattern.rawValue == pattern.primaryResultCode.rawValue {
            return pattern == code.primaryResultCode
        }
        return pattern == code
    }

    // MARK: - Codes used by this package

    /// `SQLITE_OK`.
    public static let ok = ResultCode(rawValue: SQLITE_OK)
    /// `SQLITE_ERROR`: generic error (bad SQL, missing table...).
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    /// `SQLITE_INTERNAL`.
    public static let `internal` = ResultCode(rawValue: SQLITE_INTERNAL)
    /// `SQLITE_PERM`: access permission denied.
    public static let permission = ResultCode(rawValue: SQLITE_PERM)
    /// `SQLITE_ABORT`.
    public static let abort = ResultCode(rawValue: SQLITE_ABORT)
    /// `SQLITE_BUSY`: another connection holds the lock past the busy timeout.
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    /// `SQLITE_LOCKED`.
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    /// `SQLITE_NOMEM`.
    public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
    /// `SQLITE_READONLY`: the file or its directory cannot be written.
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    /// `SQLITE_INTERRUPT`.
    public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    /// `SQLITE_CORRUPT`: the database file is malformed.
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    /// `SQLITE_FULL`: the disk is full.
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    /// `SQLITE_CANTOPEN`: the file cannot be opened.
    public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    /// `SQLITE_CONSTRAINT`: a constraint (CHECK, NOT NULL, UNIQUE...) failed.
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    /// `SQLITE_MISMATCH`: a value is not of the type asked for.
    public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
    /// `SQLITE_MISUSE`: the API was used in a way it does not allow.
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    /// `SQLITE_RANGE`: a bind index is out of range.
    public static let range = ResultCode(rawValue: SQLITE_RANGE)
    /// `SQLITE_NOTADB`: the file is not a SQLite database.
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)

    /// `SQLITE_READONLY_DBMOVED`: the database file was renamed or deleted while
    /// open; writes through the connection are refused (a C macro Swift cannot import).
    public static let readOnlyDatabaseMoved = ResultCode(rawValue: SQLITE_READONLY | (4 << 8))
}
