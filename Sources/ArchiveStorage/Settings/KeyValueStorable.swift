#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import SQLite

/// A type that can be kept in the ``KeyValueStore``.
///
/// `Bool`, `Int`, `Double`, `String`, `Date` and `Data` are stored natively.
/// Any other `Codable` type is stored as JSON once it declares the
/// conformance: `extension Settings: KeyValueStorable {}`.
public protocol KeyValueStorable: Sendable {
    /// The type tag written next to the value.
    static var keyValueType: KeyValueType { get }
    /// The value as SQLite will hold it.
    func keyValueStoredValue() throws -> KeyValueStoredValue
    /// Reads a value back; throws a message (as ``KeyValueStoreError/invalidValue(key:type:reason:)``'s reason)
    /// when the stored value does not have the shape of `Self`.
    init(keyValueStoredValue value: KeyValueStoredValue) throws(KeyValueStoreError.Reason)
}

// MARK: - Codable values, as JSON

extension KeyValueStorable where Self: Codable {
    /// JSON.
    public static var keyValueType: KeyValueType { .json }

    /// Encodes the value as JSON text with sorted keys.
    public func keyValueStoredValue() throws -> KeyValueStoredValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return .text(String(decoding: try encoder.encode(self), as: UTF8.self))
    }

    /// Decodes JSON text.
    public init(keyValueStoredValue value: KeyValueStoredValue) throws(KeyValueStoreError.Reason) {
        guard case .text(let json) = value else { throw .init("holds \(value.storageClass.rawValue), expected JSON text") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            self = try decoder.decode(Self.self, from: Data(json.utf8))
        } catch {
            throw .init("holds JSON that is not a \(Self.self): \(error)")
        }
    }
}

// MARK: - Native values

extension Bool: KeyValueStorable {
    /// `bool`.
    public static var keyValueType: KeyValueType { .bool }
    /// INTEGER 0 or 1.
    public func keyValueStoredValue() -> KeyValueStoredValue { .integer(self ? 1 : 0) }
    /// Reads INTEGER 0 or 1.
    public init(keyValueStoredValue value: KeyValueStoredValue) throws(KeyValueStoreError.Reason) {
        switch value {
        case .integer(0): self = false
        case .integer(1): self = true
        default: throw .init("holds \(value), expected 0 or 1")
        }
    }
}

extension Int: KeyValueStorable {
    /// `int`.
    public static var keyValueType: KeyValueType { .int }
    /// INTEGER.
    public func keyValueStoredValue() -> KeyValueStoredValue { .integer(Int64(self)) }
    /// Reads an INTEGER.
    public init(keyValueStoredValue value: KeyValueStoredValue) throws(KeyValueStoreError.Reason) {
        guard case .integer(let integer) = value else { throw .init("holds \(value), expected an integer") }
        self = Int(integer)
    }
}

extension Double: KeyValueStorable {
    /// `double`.
    public static var keyValueType: KeyValueType { .double }
    /// REAL.
    public func keyValueStoredValue() -> KeyValueStoredValue { .real(self) }
    /// Reads a REAL (or an INTEGER, widened).
    public init(keyValueStoredValue value: KeyValueStoredValue) throws(KeyValueStoreError.Reason) {
        switch value {
        case .real(let real): self = real
        case .integer(let integer): self = Double(integer)
        default: throw .init("holds \(value), expected a number")
        }
    }
}

extension String: KeyValueStorable {
    /// `string`.
    public static var keyValueType: KeyValueType { .string }
    /// TEXT.
    public func keyValueStoredValue() -> KeyValueStoredValue { .text(self) }
    /// Reads TEXT.
    public init(keyValueStoredValue value: KeyValueStoredValue) throws(KeyValueStoreError.Reason) {
        guard case .text(let text) = value else { throw .init("holds \(value), expected text") }
        self = text
    }
}

extension Date: KeyValueStorable {
    /// `date`.
    public static var keyValueType: KeyValueType { .date }
    /// REAL seconds since 1970.
    public func keyValueStoredValue() -> KeyValueStoredValue { .real(timeIntervalSince1970) }
    /// Reads REAL (or INTEGER) seconds since 1970.
    public init(keyValueStoredValue value: KeyValueStoredValue) throws(KeyValueStoreError.Reason) {
        switch value {
        case .real(let seconds): self.init(timeIntervalSince1970: seconds)
        case .integer(let seconds): self.init(timeIntervalSince1970: Double(seconds))
        default: throw .init("holds \(value), expected seconds since 1970")
        }
    }
}

extension Data: KeyValueStorable {
    /// `data`.
    public static var keyValueType: KeyValueType { .data }
    /// BLOB.
    public func keyValueStoredValue() -> KeyValueStoredValue { .blob(self) }
    /// Reads a BLOB.
    public init(keyValueStoredValue value: KeyValueStoredValue) throws(KeyValueStoreError.Reason) {
        guard case .blob(let data) = value else { throw .init("holds \(value), expected bytes") }
        self = data
    }
}
