/// The case folding every search shares: Unicode's lowercase mapping, scalar by scalar.
///
/// ``SearchKeyword`` folds keywords and texts with it, and ``SearchGrams`` folds
/// what the favorites index holds with it, so an indexed search and a scan agree.
package enum SearchFolding {
    /// The scalars that have no case, checked before asking Unicode's tables:
    /// the CJK symbols, kana and ideographs that most archive text is made of
    /// (a test checks every scalar of the range against the standard library).
    package static let caselessRange: ClosedRange<UInt32> = 0x3000...0x9FFF

    /// Calls `body` with each scalar `scalar` folds to (one, or several for a
    /// few letters such as `İ`).
    @inline(__always)
    package static func fold(_ scalar: Unicode.Scalar, _ body: (Unicode.Scalar) -> Void) {
        let value = scalar.value
        if value < 0x80 {
            body(value >= 65 && value <= 90 ? Unicode.Scalar(UInt8(value + 32)) : scalar)
        } else if caselessRange.contains(value) {
            body(scalar)
        } else if scalar.properties.changesWhenLowercased {
            for folded in scalar.properties.lowercaseMapping.unicodeScalars { body(folded) }
        } else {
            body(scalar)
        }
    }

    /// Calls `body` with each scalar of the UTF-8 bytes `utf8`; an ill-formed
    /// sequence reads as U+FFFD, as `String(decoding:as:)` reads it.
    @inline(__always)
    package static func forEachScalar(inUTF8 utf8: UnsafeRawBufferPointer, _ body: (Unicode.Scalar) -> Void) {
        var iterator = utf8.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): body(scalar)
            case .error: body(Unicode.Scalar.replacement)
            case .emptyInput: return
            }
        }
    }
}

extension Unicode.Scalar {
    /// U+FFFD, what an ill-formed UTF-8 sequence reads as.
    static let replacement: Unicode.Scalar = "\u{FFFD}"
}
