/// A setting and what it holds now.
///
/// Encodes as `{"key", "type", "value", "default", "isSet", "readOnly", "summary"}`
/// (`archive settings list --json` prints an array of them, `get --json` one):
/// `value` is the stored value or, while unset, the default; `value` and
/// `default` are JSON primitives of the type, or null when there is none.
public struct SettingEntry: Sendable, Hashable, Encodable {
    /// The setting.
    public let setting: ArchiveSetting
    /// The stored value, `nil` while unset.
    public let storedValue: SettingValue?

    /// What the setting reads as: its stored value, else its default.
    public var value: SettingValue? { storedValue ?? setting.defaultValue }

    /// An entry from its parts.
    public init(setting: ArchiveSetting, storedValue: SettingValue?) {
        self.setting = setting
        self.storedValue = storedValue
    }

    private enum CodingKeys: String, CodingKey {
        case key, type, value, `default`, isSet, readOnly, summary
    }

    /// Encodes the documented shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(setting.name, forKey: .key)
        try container.encode(setting.type.rawValue, forKey: .type)
        try container.encode(value, forKey: .value)
        try container.encode(setting.defaultValue, forKey: .default)
        try container.encode(storedValue != nil, forKey: .isSet)
        try container.encode(setting.readOnlyReason != nil, forKey: .readOnly)
        try container.encode(setting.summary, forKey: .summary)
    }
}
