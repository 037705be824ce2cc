#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
internal import CSQLite

/// A Swift value that can be bound to a statement parameter and read back from a column.
///
/// Reading is strict: an `Int` column must hold an INTEGER, a `String` column
/// TEXT, and so on. A value of another storage class throws
/// ``ResultCode/mismatch`` naming the column, instead of converting silently.
public protocol DatabaseValueConvertible {
    /// Binds the value to the 1-based parameter `index` of `statement`.
    func bind(to statement: Statement, at index: Int32) throws

    /// Reads a value from the 0-based column `index` of the current row.
    static func read(from statement: Statement, at index: Int32) throws -> Self
}

// MARK: - Integers and booleans

extension Int64: DatabaseValueConvertible {
    /// Binds as INTEGER.
    public func bind(to statement: Statement, at index: Int32) throws {
        try statement.check(sqlite3_bind_int64(statement.handle, index, self))
    }

    /// Reads an INTEGER column.
    public static func read(from statement: Statement, at index: Int32) throws -> Int64 {
        try statement.requireType(SQLITE_INTEGER, at: index, for: "Int64")
        return sqlite3_column_int64(statement.handle, index)
    }
}

extension Int: DatabaseValueConvertible {
    /// Binds as INTEGER.
    public func bind(to statement: Statement, at index: Int32) throws {
        try statement.check(sqlite3_bind_int64(statement.handle, index, Int64(self)))
    }

    /// Reads an INTEGER column.
    public static func read(from statement: Statement, at index: Int32) throws -> Int {
        try statement.requireType(SQLITE_INTEGER, at: index, for: "Int")
        return Int(sqlite3_column_int64(statement.handle, index))
    }
}

extension Bool: DatabaseValueConvertible {
    /// Binds as INTEGER 0 or 1.
    public func bind(to statement: Statement, at index: Int32) throws {
        try statement.check(sqlite3_bind_int64(statement.handle, index, self ? 1 : 0))
    }

    /// Reads an INTEGER column holding 0 or 1; any other value is a mismatch.
    public static func read(from statement: Statement, at index: Int32) throws -> Bool {
        try statement.requireType(SQLITE_INTEGER, at: index, for: "Bool")
        switch sqlite3_column_int64(statement.handle, index) {
        case 0: return false
        case 1: return true
        case let other:
            throw statement.mismatch(at: index, "holds the integer \(other), expected a Bool (0 or 1)")
        }
    }
}

// MARK: - Floating point

extension Double: DatabaseValueConvertible {
    /// Binds as REAL.
    public func bind(to statement: Statement, at index: Int32) throws {
        try statement.check(sqlite3_bind_double(statement.handle, index, self))
    }

    /// Reads a REAL column (an INTEGER column is widened).
    public static func read(from statement: Statement, at index: Int32) throws -> Double {
        let type = sqlite3_column_type(statement.handle, index)
        guard type == SQLITE_FLOAT || type == SQLITE_INTEGER else {
            throw statement.mismatch(at: index, "holds \(Statement.typeName(type)), expected a Double")
        }
        return sqlite3_column_double(statement.handle, index)
    }
}

// MARK: - Text and blobs

extension String: DatabaseValueConvertible {
    /// Binds as TEXT; SQLite copies the bytes (`SQLITE_TRANSIENT`).
    public func bind(to statement: Statement, at index: Int32) throws {
        var copy = self
        let code = copy.withUTF8 { buffer in
            // A non-nil pointer is required even for "" so SQLite stores '' and not NULL.
            let base = buffer.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(Statement.emptyBytes)
            return sqlite3_bind_text(
                statement.handle, index, base.assumingMemoryBound(to: CChar.self),
                Int32(clamping: buffer.count), csqlite_transient())
        }
        try statement.check(code)
    }

    /// Reads a TEXT column (invalid UTF-8 is repaired with U+FFFD).
    public static func read(from statement: Statement, at index: Int32) throws -> String {
        try statement.requireType(SQLITE_TEXT, at: index, for: "String")
        guard let bytes = sqlite3_column_text(statement.handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

extension Data: DatabaseValueConvertible {
    /// Binds as BLOB; SQLite copies the bytes (`SQLITE_TRANSIENT`). Empty data binds an empty BLOB, not NULL.
    public func bind(to statement: Statement, at index: Int32) throws {
        try withUnsafeBytes { try statement.bindBlob($0, at: index) }
    }

    /// Reads a BLOB column.
    public static func read(from statement: Statement, at index: Int32) throws -> Data {
        try statement.requireType(SQLITE_BLOB, at: index, for: "Data")
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(statement.handle, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}

extension [UInt8]: DatabaseValueConvertible {
    /// Binds as BLOB; SQLite copies the bytes (`SQLITE_TRANSIENT`). No bytes bind an empty BLOB, not NULL.
    public func bind(to statement: Statement, at index: Int32) throws {
        try withUnsafeBytes { try statement.bindBlob($0, at: index) }
    }

    /// Reads a BLOB column.
    public static func read(from statement: Statement, at index: Int32) throws -> [UInt8] {
        try statement.requireType(SQLITE_BLOB, at: index, for: "[UInt8]")
        return statement.withBlob(at: index) { Array($0) }
    }
}

// MARK: - NULL

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// Binds the wrapped value, or NULL for `nil`.
    public func bind(to statement: Statement, at index: Int32) throws {
        switch self {
        case .none: try statement.check(sqlite3_bind_null(statement.handle, index))
        case .some(let value): try value.bind(to: statement, at: index)
        }
    }

    /// Reads `nil` for a NULL column, the wrapped type otherwise.
    public static func read(from statement: Statement, at index: Int32) throws -> Wrapped? {
        if sqlite3_column_type(statement.handle, index) == SQLITE_NULL { return nil }
        return try Wrapped.read(from: statement, at: index)
    }
}
