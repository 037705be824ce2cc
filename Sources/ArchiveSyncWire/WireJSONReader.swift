import ArchiveSyncModel

/// A strict reader of the JSON the sync wire carries, over bytes in memory: objects, arrays,
/// strings, plain integers, booleans and null, as ``WireJSON``'s fast decoding reads them.
///
/// It accepts a subset of JSON and answers `nil` (never guesses) for anything else: a number
/// with a fraction or an exponent, or out of `Int64`'s range, a string with a control
/// character, ill-formed UTF-8 or a lone surrogate, nesting deeper than 64, any syntax error.
/// ``WireJSON`` then decodes the same bytes with `JSONDecoder`, which gives the answer (or the
/// error) for those, so the subset only decides how fast an answer comes, never what it is.
package struct WireJSONReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var position = 0
    private static let maximumDepth = 64

    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether only whitespace is left.
    package mutating func atEnd() -> Bool {
        skipWhitespace()
        return position == bytes.count
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// Consumes `byte` after whitespace; whether it was there.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// The next byte after whitespace, not consumed.
    private mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    /// Reads an object, calling `member` with each key; `member` reads the value (or skips
    /// it) and returns whether it could. `nil` when the object is not in the subset.
    mutating func object(_ member: (inout WireJSONReader, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// Reads an array, calling `element` for each; whether it was in the subset.
    mutating func array(_ element: (inout WireJSONReader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard element(&self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    /// Reads `null`; whether it was there (nothing is consumed otherwise).
    mutating func null() -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        return literal("null")
    }

    /// Reads `true` or `false`.
    mutating func bool() -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"): literal("true") ? true : nil
        case UInt8(ascii: "f"): literal("false") ? false : nil
        default: nil
        }
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        for index in 0..<count where bytes[position + index] != text.utf8Start[index] { return false }
        position += count
        return true
    }

    /// Reads an integer written without fraction or exponent, within `Int64`.
    mutating func integer() -> Int64? {
        skipWhitespace()
        var index = position
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            let digit = Int64(bytes[index] - 0x30)
            // Accumulated as a negative number: Int64.min has no positive counterpart.
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(digit)
            guard !overflow, !overflow2 else { return nil }
            value = next
            index += 1
        }
        let digits = index - digitsStart
        guard digits > 0, digits == 1 || bytes[digitsStart] != 0x30 else { return nil }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        if !negative {
            guard value != .min else { return nil }
            value = -value
        }
        position = index
        return value
    }

    /// Reads a string: its escapes resolved, well-formed UTF-8, no raw control characters.
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = position
        // The common case: no escape, copied at once once validated.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            position += 1
        }
        var scalars = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<min(position, bytes.count)]))
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard var unit = hex4() else { return nil }
                    if (0xD800...0xDBFF).contains(unit) {
                        guard literal("\\u"), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        return nil
                    }
                    guard let scalar = Unicode.Scalar(unit) else { return nil }
                    UTF8.encode(scalar) { scalars.append($0) }
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                scalars.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - position >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Hex.nibble(bytes[position]) else { return nil }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Skips one value of any kind (an unknown member's), within the nesting bound.
    mutating func skipValue(depth: Int = 0) -> Bool {
        guard depth < Self.maximumDepth else { return false }
        switch peek() {
        case UInt8(ascii: "{"): return object { reader, _ in reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): return array { reader in reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return bool() != nil
        case UInt8(ascii: "n"): return null()
        default: return integer() != nil
        }
    }
}
