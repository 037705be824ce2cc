/// The query part of a URL as json-server reads it: `name=value` pairs joined by
/// `&`, where `+` is a space and `%XX` a byte, and the bytes must be UTF-8.
/// The HTTP client encodes with it and `archive-server` decodes with it, so both ends
/// agree on every byte.
public enum QueryString {
    /// One decoded `name=value` pair.
    public struct Item: Sendable, Hashable {
        /// The decoded name.
        public var name: String
        /// The decoded value (empty when the pair had no `=`).
        public var value: String

        /// An item from its decoded name and value.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The items of `query` (without the leading `?`), in order; empty pairs are skipped.
    /// Throws ``CatalogQueryError/invalidEncoding(_:)`` for a bad `%` escape or bytes that are not UTF-8.
    public static func decode(_ query: Substring) throws(CatalogQueryError) -> [Item] {
        var items: [Item] = []
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let name = try decodeComponent(pair[..<(equals ?? pair.endIndex)])
            var value = ""
            if let equals { value = try decodeComponent(pair[pair.index(after: equals)...]) }
            items.append(Item(name, value))
        }
        return items
    }

    /// `items` as a query (without the `?`): every byte but ASCII letters, digits
    /// and `-._~` is percent-encoded, so `+`, `&`, `=`, spaces and non-ASCII text survive.
    public static func encode(_ items: [Item]) -> String {
        var output: [UInt8] = []
        for item in items {
            if !output.isEmpty { output.append(UInt8(ascii: "&")) }
            appendEncoded(item.name, to: &output)
            output.append(UInt8(ascii: "="))
            appendEncoded(item.value, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: - Bytes

    private static func decodeComponent(_ bytes: Substring.UTF8View.SubSequence) throws(CatalogQueryError) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "+"):
                decoded.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                let high = bytes.index(after: index)
                guard high < bytes.endIndex, bytes.index(after: high) < bytes.endIndex,
                      let upper = hexValue(bytes[high]), let lower = hexValue(bytes[bytes.index(after: high)])
                else { throw .invalidEncoding(String(Substring(bytes))) }
                decoded.append(upper << 4 | lower)
                index = bytes.index(after: high)
            default:
                decoded.append(byte)
            }
            index = bytes.index(after: index)
        }
        guard let text = String(validating: decoded, as: UTF8.self) else {
            throw .invalidEncoding(String(Substring(bytes)))
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func appendEncoded(_ text: String, to output: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
        }
    }
}
