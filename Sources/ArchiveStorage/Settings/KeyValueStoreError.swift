/// Why a key-value entry could not be read or written.
public enum KeyValueStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why a stored value does not fit the type asked for: a message fragment.
    public struct Reason: Error, Sendable, Hashable {
        /// What is wrong with the stored value ("holds 7, expected 0 or 1").
        public let message: String
        /// Creates a reason.
        public init(_ message: String) { self.message = message }
    }

    /// The entry was written as another type than the key asks for.
    case typeMismatch(key: String, stored: String, expected: KeyValueType)
    /// The entry's type tag is right but its value does not have that type's shape
    /// (another program wrote it, or a `Codable` type changed).
    case invalidValue(key: String, type: KeyValueType, reason: String)
    /// The value could not be encoded for storage.
    case encodingFailed(key: String, reason: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .typeMismatch(let key, let stored, let expected):
            return "key-value entry '\(key)' holds a value of type \(stored), but it is read as \(expected.rawValue); remove the entry (it then reads as its default) or read it with the right type"
        case .invalidValue(let key, let type, let reason):
            return "key-value entry '\(key)' of type \(type.rawValue) \(reason); remove the entry to restore its default"
        case .encodingFailed(let key, let reason):
            return "cannot store key-value entry '\(key)': \(reason); nothing was written"
        }
    }
}
