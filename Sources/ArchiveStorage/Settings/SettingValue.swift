#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The value of an archive setting, typed as the setting declares it.
///
/// Encodes as a JSON primitive: `true`, `"text"`, or a date as
/// `"2026-11-22T14:41:51.000Z"`.
public enum SettingValue: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// A flag.
    case bool(Bool)
    /// A text.
    case string(String)
    /// A moment.
    case date(Date)

    /// The value as `settings get` prints it: `true`, `42`, the text itself, an ISO 8601 date.
    public var description: String {
        switch self {
        case .bool(let flag): String(flag)
        case .string(let text): text
        case .date(let date): date.iso8601Milliseconds
        }
    }

    /// Encodes the primitive.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let flag): try container.encode(flag)
        case .string(let text): try container.encode(text)
        case .date(let date): try container.encode(date.iso8601Milliseconds)
        }
    }
}
