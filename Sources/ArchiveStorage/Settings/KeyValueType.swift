/// The type tag stored next to every key-value entry, naming what it was written as.
public enum KeyValueType: String, Sendable, Hashable, CaseIterable {
    /// `Bool`, stored as INTEGER 0 or 1.
    case bool
    /// `Int`, stored as INTEGER.
    case int
    /// `Double`, stored as REAL.
    case double
    /// `String`, stored as TEXT.
    case string
    /// `Date`, stored as REAL seconds since 1970.
    case date
    /// `Data`, stored as BLOB.
    case data
    /// Any `Codable` value, stored as JSON TEXT.
    case json
}
