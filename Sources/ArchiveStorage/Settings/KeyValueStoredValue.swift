#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import SQLite

/// A key-value entry's value as SQLite holds it.
public enum KeyValueStoredValue: Sendable, Hashable, DatabaseValueConvertible {
    /// An INTEGER.
    case integer(Int64)
    /// A REAL.
    case real(Double)
    /// A TEXT.
    case text(String)
    /// A BLOB.
    case blob(Data)

    /// The SQLite storage class of the value, for messages.
    public var storageClass: StorageClass {
        switch self {
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

    /// Binds the value with its own storage class.
    public func bind(to statement: Statement, at index: Int32) throws {
        switch self {
        case .integer(let value): try statement.bind(value, at: index)
        case .real(let value): try statement.bind(value, at: index)
        case .text(let value): try statement.bind(value, at: index)
        case .blob(let value): try statement.bind(value, at: index)
        }
    }

    /// Reads whatever storage class the column holds; NULL is a mismatch.
    public static func read(from statement: Statement, at index: Int32) throws -> KeyValueStoredValue {
        switch statement.storageClass(at: index) {
        case .integer: .integer(try statement.column(at: index))
        case .real: .real(try statement.column(at: index))
        case .text: .text(try statement.column(at: index))
        case .blob: .blob(try statement.column(at: index))
        case .null: throw SQLiteError(code: .mismatch, message: "column \(index) holds NULL, expected a key-value entry", sql: statement.sql)
        }
    }
}
