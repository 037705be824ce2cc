/// A settings request the archive refuses before anything is written.
public enum SettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No setting has this name.
    case unknownKey(String, known: [String])
    /// The text cannot be read as the setting's type (or is not one of its values).
    case invalidValue(key: String, value: String, expected: String)
    /// The setting is kept by the archive itself and cannot be set or reset.
    case readOnly(key: String, reason: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .unknownKey(let key, let known):
            return "no setting is named \(Self.quoted(key)); the settings are: \(known.joined(separator: ", ")) (see `archive settings list`)"
        case .invalidValue(let key, let value, let expected):
            return "\(Self.quoted(value)) is not a valid value for \(key): expected \(expected); nothing was written"
        case .readOnly(let key, let reason):
            return "\(key) cannot be changed: \(reason)"
        }
    }

    /// The longest text a message quotes whole; a longer one is cut, with its length.
    static let quotedLimit = 64

    /// `text` in single quotes, cut to its first ``quotedLimit`` characters (and its
    /// length given) when longer: a refused 100 KB value must not fill the terminal.
    static func quoted(_ text: String) -> String {
        let count = text.count
        guard count > quotedLimit else { return "'\(text)'" }
        return "'\(text.prefix(quotedLimit))…' (\(count) characters)"
    }
}
