#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `archive-server`'s administration commands print with `--json`: one line, keys
/// sorted, slashes unescaped.
enum ServerJSON {
    /// `value` as that line.
    static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
