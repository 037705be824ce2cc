/// The rule of a user's name and a device's label, one for every backend: what is stored is
/// the name in lower case (names ignore case: `Alice` is `alice`), 1 to 64 of
/// `A–Z a–z 0–9 . _ -` with at least one letter or digit (never `.`, `..` or `-`).
public enum AccountName {
    /// The name as stored; ``ServerStorageError/invalidUserName(_:)`` when it breaks the rule.
    public static func user(_ name: String) throws(ServerStorageError) -> String {
        guard let canonical = canonical(name) else { throw .invalidUserName(name) }
        return canonical
    }

    /// A device label as stored, by the same rule; ``ServerStorageError/invalidDeviceLabel(_:)``
    /// when it breaks it.
    public static func device(_ label: String) throws(ServerStorageError) -> String {
        guard let canonical = canonical(label) else { throw .invalidDeviceLabel(label) }
        return canonical
    }

    private static func canonical(_ text: String) -> String? {
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
        let allowed = text.utf8.allSatisfy { byte in
            isLetterOrDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard (1...64).contains(text.utf8.count), allowed, text.utf8.contains(where: isLetterOrDigit) else { return nil }
        return text.lowercased()
    }
}
