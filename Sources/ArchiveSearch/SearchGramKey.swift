/// A gram of the favorites search as a 32-bit key: the key the search runs
/// (``SearchRunBuilder``) sort and store their lists by.
///
/// A gram is what ``SearchGrams`` cuts: a folded scalar and the two after it,
/// padded at a text's end. Its key takes 11 bits from its first scalar, the next
/// 11 from its second and the last 10 from its third, each scalar spread by a
/// multiplicative hash first. So:
/// - every gram starting with one scalar lies in one range of keys, and every
///   gram starting with two in one smaller range: a 1- or 2-scalar keyword is a
///   range query (``lookups(for:)``), as it is a prefix query on ``SearchGrams``;
/// - different grams may share a key. That only adds candidates, which the
///   caller checks against ``SearchKeyword`` anyway; a gram's favorites are
///   never missing from its key's list.
public struct SearchGramKey: Hashable, Comparable, Sendable {
    /// The key's 32 bits.
    public let rawValue: UInt32

    /// The key whose bits are `rawValue`.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The key of the gram `first`, `second`, `third` (scalar values, or
    /// ``padding`` after a text's end).
    @inline(__always)
    init(_ first: UInt32, _ second: UInt32, _ third: UInt32) {
        rawValue = (Self.spread(first) >> 21) << 21 | (Self.spread(second) >> 21) << 10 | Self.spread(third) >> 22
    }

    /// Whether this key orders before `other`.
    public static func < (left: SearchGramKey, right: SearchGramKey) -> Bool {
        left.rawValue < right.rawValue
    }

    /// What stands for "no scalar" after a text's end: not a scalar value, so
    /// a padded gram is its own gram (its key may still collide).
    static let padding: UInt32 = 0xFFFF_FFFF

    /// Fibonacci hashing: the high bits of the product depend on every bit of
    /// the scalar, so neighbouring kana and kanji land far apart.
    @inline(__always)
    static func spread(_ value: UInt32) -> UInt32 {
        value &* 0x9E37_79B1
    }

    // MARK: - Cutting a text

    /// Calls `body` with the key of every gram of the text whose UTF-8 bytes
    /// are `utf8`, in order (a key may repeat): one key per folded scalar,
    /// exactly the grams ``SearchGrams/forEachGram(inUTF8:_:)`` cuts.
    ///
    /// Ill-formed UTF-8 reads as U+FFFD, as the search's folding reads it.
    ///
    /// The bulk path of the index, so it decodes by hand what most archive text
    /// is made of: ASCII, folded here, and the three-byte scalars of
    /// ``SearchFolding/caselessRange`` (kana, CJK symbols and ideographs: a lead
    /// byte of `E3` to `E9` and two continuation bytes are always well formed
    /// there, and have no case). Any other byte goes through the standard
    /// library's parser, one scalar at a time, and ``SearchFolding``. This, and
    /// the builder counting the sort's digits as it cuts, took building the runs
    /// of 200,000 favorites from 0.435 to 0.316 s against the standard decoder
    /// alone (`probes/run_builder`, best of five).
    @inline(__always)
    public static func forEachKey(inUTF8 utf8: UnsafeRawBufferPointer, _ body: (SearchGramKey) -> Void) {
        var first: UInt32 = 0
        var second: UInt32 = 0
        var count = 0
        var index = 0
        let end = utf8.count
        decoding: while index < end {
            let lead = utf8[index]
            // The scalar's folded value and its length in bytes, when a fast path knows them.
            var value: UInt32 = 0
            var length = 0
            if lead < 0x80 {
                value = UInt32(lead &- 65 < 26 ? lead | 0x20 : lead)
                length = 1
            } else if lead & 0xF0 == 0xE0, index &+ 2 < end {
                let middle = utf8[index &+ 1]
                let last = utf8[index &+ 2]
                let scalar = UInt32(lead & 0x0F) << 12 | UInt32(middle & 0x3F) << 6 | UInt32(last & 0x3F)
                if middle & 0xC0 == 0x80, last & 0xC0 == 0x80, SearchFolding.caselessRange.contains(scalar) {
                    value = scalar
                    length = 3
                }
            }
            if length == 0 {
                // Anything else: one scalar, or one ill-formed sequence, by the standard parser.
                var iterator = UnsafeRawBufferPointer(rebasing: utf8[index...]).makeIterator()
                var parser = Unicode.UTF8.ForwardParser()
                let scalar: Unicode.Scalar
                switch parser.parseScalar(from: &iterator) {
                case .valid(let encoded):
                    length = encoded.count
                    scalar = Unicode.UTF8.decode(encoded)
                case .error(let errorLength):
                    length = errorLength
                    scalar = .replacement
                case .emptyInput:
                    break decoding
                }
                switch SearchFolding.folded(scalar) {
                case .one(let folded):
                    value = folded.value
                case .several(let scalars):
                    // All but the last here; the last goes on as `value`.
                    var rest = scalars.makeIterator()
                    guard var previous = rest.next() else {
                        index &+= length
                        continue decoding
                    }
                    while let next = rest.next() {
                        if count >= 2 { body(SearchGramKey(first, second, previous.value)) }
                        first = second
                        second = previous.value
                        count &+= 1
                        previous = next
                    }
                    value = previous.value
                }
            }
            index &+= length
            if count >= 2 { body(SearchGramKey(first, second, value)) }
            first = second
            second = value
            count &+= 1
        }
        if count >= 2 { body(SearchGramKey(first, second, padding)) }
        if count >= 1 { body(SearchGramKey(second, padding, padding)) }
    }

    // MARK: - Looking a keyword up

    /// The ranges of keys whose lists, intersected, hold (a superset of) the
    /// texts containing `keyword`, or `nil` when an index cannot narrow the
    /// search: an empty keyword matches everything.
    ///
    /// A 1- or 2-scalar keyword is one range (every gram that starts with it);
    /// a longer one is its 3-scalar windows, one key each, each once, at most
    /// ``SearchGrams/maximumWindows`` of them spread from the first to the last.
    /// Any non-empty subset of the ranges still finds a superset, so a caller
    /// may intersect only the rarest.
    public static func lookups(for keyword: SearchKeyword) -> [ClosedRange<SearchGramKey>]? {
        let needle = keyword.needle
        guard !needle.isEmpty else { return nil }
        let scalars = Array(String(decoding: needle, as: UTF8.self).unicodeScalars.map(\.value))
        switch scalars.count {
        case 1:
            let low = (spread(scalars[0]) >> 21) << 21
            return [SearchGramKey(rawValue: low)...SearchGramKey(rawValue: low | 0x1F_FFFF)]
        case 2:
            let low = (spread(scalars[0]) >> 21) << 21 | (spread(scalars[1]) >> 21) << 10
            return [SearchGramKey(rawValue: low)...SearchGramKey(rawValue: low | 0x3FF)]
        default:
            let starts = scalars.count - 2
            let step = max(1, (starts + SearchGrams.maximumWindows - 1) / SearchGrams.maximumWindows)
            var keys: [SearchGramKey] = []
            for start in Array(stride(from: 0, to: starts, by: step)) + [starts - 1] {
                let key = SearchGramKey(scalars[start], scalars[start + 1], scalars[start + 2])
                if !keys.contains(key) { keys.append(key) }
            }
            return keys.map { $0...$0 }
        }
    }
}
