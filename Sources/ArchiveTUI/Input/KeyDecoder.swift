/// Turns the bytes a terminal sends into ``Key``s: UTF-8 text, control
/// characters and the common VT100/xterm escape sequences.
///
/// Bytes arrive in chunks as the terminal wrote them; an ESC followed by
/// nothing in the same chunk is the Escape key itself.
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// Decodes one chunk of input, keeping an incomplete UTF-8 sequence for the next chunk.
    mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            let byte = pending[index]
            switch byte {
            case 0x1B:
                let (key, length) = Self.escapeSequence(pending[index...])
                keys.append(key)
                index += length
            case 0x0D, 0x0A:
                keys.append(.enter)
                index += 1
            case 0x09:
                keys.append(.tab)
                index += 1
            case 0x7F, 0x08:
                keys.append(.backspace)
                index += 1
            case 0x01...0x1A:
                keys.append(.control(Character(Unicode.Scalar(byte + 0x60))))
                index += 1
            case 0x00, 0x1C...0x1F:
                keys.append(.unknown)
                index += 1
            default:
                let length = Self.utf8Length(byte)
                guard length > 0 else {
                    keys.append(.unknown)
                    index += 1
                    continue
                }
                guard index + length <= pending.count else {
                    pending.removeFirst(index)
                    return keys  // wait for the rest of the character
                }
                let scalarBytes = pending[index..<(index + length)]
                if let text = String(validating: scalarBytes, as: UTF8.self), let character = text.first {
                    keys.append(.character(character))
                } else {
                    keys.append(.unknown)
                }
                index += length
            }
        }
        pending.removeAll()
        return keys
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0x20...0x7E: 1
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 0
        }
    }

    /// The key an escape sequence starting at `bytes.startIndex` encodes, and its length.
    private static func escapeSequence(_ bytes: ArraySlice<UInt8>) -> (Key, Int) {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return (.escape, 1) }
        let introducer = bytes[start + 1]
        if introducer == UInt8(ascii: "O"), bytes.count >= 3 {
            switch bytes[start + 2] {
            case UInt8(ascii: "A"): return (.up, 3)
            case UInt8(ascii: "B"): return (.down, 3)
            case UInt8(ascii: "C"): return (.right, 3)
            case UInt8(ascii: "D"): return (.left, 3)
            case UInt8(ascii: "H"): return (.home, 3)
            case UInt8(ascii: "F"): return (.end, 3)
            case UInt8(ascii: "P")...UInt8(ascii: "S"): return (.function(Int(bytes[start + 2] - UInt8(ascii: "P")) + 1), 3)
            default: return (.unknown, 3)
            }
        }
        guard introducer == UInt8(ascii: "[") else { return (.escape, 1) }
        // CSI: parameters (digits and ';'), then a final byte.
        var index = start + 2
        var parameters = ""
        while index < bytes.endIndex, (0x30...0x3F).contains(bytes[index]) {
            parameters.append(Character(Unicode.Scalar(bytes[index])))
            index += 1
        }
        guard index < bytes.endIndex else { return (.unknown, index - start) }
        let final = bytes[index]
        let length = index - start + 1
        let first = Int(parameters.split(separator: ";").first ?? "") ?? 0
        switch final {
        case UInt8(ascii: "A"): return (.up, length)
        case UInt8(ascii: "B"): return (.down, length)
        case UInt8(ascii: "C"): return (.right, length)
        case UInt8(ascii: "D"): return (.left, length)
        case UInt8(ascii: "H"): return (.home, length)
        case UInt8(ascii: "F"): return (.end, length)
        case UInt8(ascii: "Z"): return (.backTab, length)
        case UInt8(ascii: "~"):
            switch first {
            case 1, 7: return (.home, length)
            case 3: return (.delete, length)
            case 4, 8: return (.end, length)
            case 5: return (.pageUp, length)
            case 6: return (.pageDown, length)
            case 11...15: return (.function(first - 10), length)
            case 17...21: return (.function(first - 11), length)
            case 23, 24: return (.function(first - 12), length)
            default: return (.unknown, length)
            }
        default:
            return (.unknown, length)
        }
    }
}
