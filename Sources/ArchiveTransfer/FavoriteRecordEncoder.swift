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

    /// Appends `row` as one line of JSON (no newline) to `output`, exactly as
    /// ``append(_:to:)`` would append `row.object`, but from the row's bytes: no
    /// `String` is made for valid UTF-8 (invalid bytes are repaired with U+FFFD, as decoding does).
    public static func append(_ row: StoredArchiveRow, to output: inout [UInt8]) {
        output.append(contentsOf: #"{"id":"#.utf8)
        output.append(contentsOf: String(row.id).utf8)
        field("photoUrl", row, .photoUrl, &output)
        field("category", row, .category, &output)
        field("dishName", row, .dishName, &output)
        field("shopName", row, .shopName, &output)
        field("introduction", row, .introduction, &output)
        output.append(contentsOf: #","storedAt":""#.utf8)
        ISO8601Milliseconds.append(row.storedAtMilliseconds, to: &output)
        output.append(contentsOf: #""}"#.utf8)
    }

    /// `object` as one line of JSON.
    public static func encode(_ object: StoredArchiveObject) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + object.introduction.utf8.count)
        append(object, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func field(_ name: StaticString, _ row: StoredArchiveRow, _ text: StoredArchiveRow.Field, _ output: inout [UInt8]) {
        output.append(contentsOf: #",""#.utf8)
        name.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(contentsOf: #"":""#.utf8)
        row.withUTF8(text) { slice in
            slice.withUnsafeBufferPointer { bytes in
                if UTF8Validation.isValid(bytes) {
                    appendEscaped(bytes, to: &output)
                } else {
                    appendEscaped(String(decoding: bytes, as: UTF8.self), to: &output)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
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
        var value = value
        value.withUTF8 { appendEscaped($0, to: &output) }
    }

    /// Appends UTF-8 `bytes` as the inside of a JSON string: runs of bytes that
    /// need no escape are copied at once.
    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F else { continue }
            if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            appendEscape(of: byte, to: &output)
            runStart = index + 1
        }
        if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }

    private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        default:
            output.append(contentsOf: #"\u00"#.utf8)
            hex.withUTF8Buffer { digits in
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0xF)])
            }
        }
    }
}
