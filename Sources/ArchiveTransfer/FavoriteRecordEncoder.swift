public import ArchiveStorage
public import ArchiveSyncModel

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
        literal(#"{"id":"#, &output)
        appendDecimal(object.id, to: &output)
        field("photoUrl", object.photoUrl, &output)
        field("category", object.category, &output)
        field("dishName", object.dishName, &output)
        field("shopName", object.shopName, &output)
        field("introduction", object.introduction, &output)
        literal(#","storedAt":""#, &output)
        ISO8601Milliseconds.append(object.storedAt.millisecondsSince1970, to: &output)
        literal(#""}"#, &output)
    }

    /// Appends `row` as one line of JSON (no newline) to `output`, exactly as
    /// ``append(_:to:)`` would append `row.object`, but from the row's bytes: no
    /// `String` is made for valid UTF-8 (invalid bytes are repaired with U+FFFD, as decoding does).
    public static func append(_ row: StoredArchiveRow, to output: inout [UInt8]) {
        literal(#"{"id":"#, &output)
        appendDecimal(row.id, to: &output)
        field("photoUrl", row, .photoUrl, &output)
        field("category", row, .category, &output)
        field("dishName", row, .dishName, &output)
        field("shopName", row, .shopName, &output)
        field("introduction", row, .introduction, &output)
        literal(#","storedAt":""#, &output)
        ISO8601Milliseconds.append(row.storedAtMilliseconds, to: &output)
        literal(#""}"#, &output)
    }

    /// `object` as one line of JSON.
    public static func encode(_ object: StoredArchiveObject) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + object.introduction.utf8.count)
        append(object, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Fields

    private static func field(_ name: StaticString, _ row: StoredArchiveRow, _ text: StoredArchiveRow.Field, _ output: inout [UInt8]) {
        literal(#",""#, &output)
        literal(name, &output)
        literal(#"":""#, &output)
        row.withUTF8(text) { slice in
            slice.withUnsafeBufferPointer { bytes in
                // One pass checks the bytes and escapes them; only a damaged text makes a String.
                if !appendEscapedIfValid(bytes, to: &output) {
                    appendEscaped(String(decoding: bytes, as: UTF8.self), to: &output)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func field(_ name: StaticString, _ value: String, _ output: inout [UInt8]) {
        literal(#",""#, &output)
        literal(name, &output)
        literal(#"":""#, &output)
        appendEscaped(value, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `text`'s bytes (a `StaticString` is copied as it is, where a `String`'s
    /// `utf8` view would be appended through the generic, byte-at-a-time path).
    @inline(__always)
    static func literal(_ text: StaticString, _ output: inout [UInt8]) {
        text.withUTF8Buffer { output.append(contentsOf: $0) }
    }

    /// Appends `value` in decimal, without making a `String`.
    static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeMutableBufferPointer(rebasing: digits[start...]))
        }
    }

    // MARK: - Escaping

    /// Appends `value` as the inside of a JSON string: quotes, backslashes and
    /// control characters escaped, everything else as UTF-8.
    static func appendEscaped(_ value: String, to output: inout [UInt8]) {
        var value = value
        // A String's UTF-8 is always well formed, so the check cannot fail here.
        value.withUTF8 { _ = appendEscapedIfValid($0, to: &output) }
    }

    /// Appends UTF-8 `bytes` as the inside of a JSON string, checking as it goes
    /// that they are well-formed UTF-8 (``UTF8Validation``): runs of bytes that need
    /// no escape are copied at once. Bytes that are not well formed append nothing
    /// and return `false`.
    static func appendEscapedIfValid(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) -> Bool {
        let outputStart = output.count
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte >= 0x80 {
                let length = UTF8Validation.sequenceLength(bytes, at: index)
                guard length > 0 else {
                    output.removeSubrange(outputStart...)
                    return false
                }
                index += length
                continue
            }
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F {
                if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                appendEscape(of: byte, to: &output)
                runStart = index + 1
            }
            index += 1
        }
        if runStart < count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        return true
    }

    private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        switch byte {
        case UInt8(ascii: "\""): literal(#"\""#, &output)
        case UInt8(ascii: "\\"): literal(#"\\"#, &output)
        case 0x0A: literal(#"\n"#, &output)
        case 0x0D: literal(#"\r"#, &output)
        case 0x09: literal(#"\t"#, &output)
        default:
            literal(#"\u00"#, &output)
            hex.withUTF8Buffer { digits in
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0xF)])
            }
        }
    }
}
