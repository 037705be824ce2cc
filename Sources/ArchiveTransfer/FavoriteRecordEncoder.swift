public import ArchiveStorage

/// The one encoder of a favorite record, used by `export`, `favorites --json`
/// and anything else that prints a favorite, so the shapes cannot drift apart.
///
/// A record is one line of JSON with its fields in a fixed order:
/// `{"id":17,"photoUrl":"…","category":"洋食","dishName":"…","shopName":"…","introduction":"…","storedAt":"2026-11-22T04:19:57.123Z"}`.
/// It writes bytes directly (no `JSONEncoder`): an export of a million favorites
/// spends most of its time here.
public enum FavoriteRecordEncoder {
    /// Appends `object` as one line of JSON (no newline) to `output`.
    public static func append(_ object: StoredArchiveObject, to output: inout [UInt8]) {
        output.append(contentsOf: #"{"id":"#.utf8)
        output.append(contentsOf: String(object.id).utf8)
        field("photoUrl", object.photoUrl, &output)
        field("category", object.category, &output)
        field("dishName", object.dishName, &output)
        field("shopName", object.shopName, &output)
        field("introduction", object.introduction, &output)
        output.append(contentsOf: #","storedAt":""#.utf8)
        ISO8601Milliseconds.append(object.storedAt.millisecondsSince1970, to: &output)
        output.append(contentsOf: #""}"#.utf8)
    }

    /// `object` as one line of JSON.
    public static func encode(_ object: StoredArchiveObject) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + object.introduction.utf8.count)
        append(object, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func field(_ name: StaticString, _ value: String, _ output: inout [UInt8]) {
        output.append(contentsOf: #",""#.utf8)
        name.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(contentsOf: #"":""#.utf8)
        appendEscaped(value, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `value` as the inside of a JSON string: quotes, backslashes and
    /// control characters escaped, everything else as UTF-8.
    static func appendEscaped(_ value: String, to output: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20, 0x7F:
                output.append(contentsOf: #"\u00"#.utf8)
                hex.withUTF8Buffer { digits in
                    output.append(digits[Int(byte >> 4)])
                    output.append(digits[Int(byte & 0xF)])
                }
            default: output.append(byte)
            }
        }
    }
}
