/// The case folding every search shares: Unicode's lowercase mapping, scalar by scalar.
///
/// ``SearchKeyword`` folds keywords and texts with it, and ``SearchGrams`` folds
/// what the favorites index holds with it, so an indexed search and a scan agree.
package enum SearchFolding {
    /// The scalars that have no case, checked before asking Unicode's tables:
    /// the CJK symbols, kana and ideographs that most archive text is made of
    /// (a test checks every scalar of the range against the standard library).
    package static let caselessRange: ClosedRange<UInt32> = 0x3000...0x9FFF

    /// What a scalar folds to.
    package enum Folded {
        /// One scalar (the scalar itself when it has no case).
        case one(Unicode.Scalar)
        /// Several, for a few letters such as `İ`.
        case several(String.UnicodeScalarView)
    }

    /// What `scalar` folds to: the one definition of the folding.
    @inline(__always)
    package static func folded(_ scalar: Unicode.Scalar) -> Folded {
        let value = scalar.value
        if value < 0x80 {
            return .one(value >= 65 && value <= 90 ? Unicode.Scalar(UInt8(value + 32)) : scalar)
        } else if caselessRange.contains(value) || !scalar.properties.changesWhenLowercased {
            return .one(scalar)
        }
        let mapping = scalar.properties.lowercaseMapping.unicodeScalars
        return mapping.count == 1 ? .one(mapping[mapping.startIndex]) : .several(mapping)
    }

    /// Calls `body` with each scalar `scalar` folds to.
    @inline(__always)
    package static func fold(_ scalar: Unicode.Scalar, _ body: (Unicode.Scalar) -> Void) {
        switch folded(scalar) {
        case .one(let folded): body(folded)
        case .several(let scalars): for folded in scalars { body(folded) }
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
