/// A search keyword, with json-server's `q` semantics: what a keyword matches in
/// the engine and its fronts, used by the bundled catalog's search, the favorites
/// search (and its index, ``SearchGrams``) and the highlighting of both fronts.
/// The service's web page searches a user's favorites by another rule, for now:
/// ASCII letters only folded (`FoldedSubstring` on SQLite, `strpos(lower())` on
/// PostgreSQL).
///
/// A keyword is trimmed of surrounding whitespace; an empty keyword matches
/// everything. Otherwise it matches a text that contains it, ignoring case:
/// both sides are folded to lowercase scalar by scalar (Unicode's lowercase
/// mapping), then compared as UTF-8 bytes.
public struct SearchKeyword: Sendable, Hashable {
    /// The keyword as typed, trimmed.
    public let text: String
    /// The folded UTF-8 bytes that are searched for.
    package let needle: [UInt8]

    /// The keyword `text` (trimmed of surrounding whitespace).
    public init(_ text: String) {
        self.text = text.trimmingWhitespace()
        self.needle = Self.fold(self.text)
    }

    /// Whether the keyword is empty (it then matches everything).
    public var isEmpty: Bool { needle.isEmpty }

    /// Whether `text` contains the keyword, ignoring case (always true for an empty keyword).
    public func matches(_ text: String) -> Bool {
        needle.isEmpty || Self.firstMatch(of: needle, in: Self.fold(text), from: 0) != nil
    }

    /// Whether the text whose UTF-8 bytes are `utf8` contains the keyword: ``matches(_:)``
    /// without making a `String` (ill-formed bytes read as U+FFFD, as `String(decoding:)` does).
    public func matches(utf8: UnsafeRawBufferPointer) -> Bool {
        guard !needle.isEmpty else { return true }
        var folded: [UInt8] = []
        folded.reserveCapacity(utf8.count)
        SearchFolding.forEachScalar(inUTF8: utf8) { scalar in
            SearchFolding.fold(scalar) { UTF8.encode($0) { folded.append($0) } }
        }
        return Self.firstMatch(of: needle, in: folded, from: 0) != nil
    }

    /// `text` cut into the parts the keyword matched and the parts it did not, in order
    /// (``matchRanges(in:)``'s ranges and what lies between); one unmatched part when the
    /// keyword is empty or finds nothing. Every front's highlight is drawn from these.
    public func segments(of text: String) -> [(text: Substring, isMatch: Bool)] {
        var segments: [(text: Substring, isMatch: Bool)] = []
        var position = text.startIndex
        for range in matchRanges(in: text) {
            if position < range.lowerBound { segments.append((text[position..<range.lowerBound], false)) }
            segments.append((text[range], true))
            position = range.upperBound
        }
        if position < text.endIndex || segments.isEmpty { segments.append((text[position...], false)) }
        return segments
    }

    /// The ranges of `text` that match the keyword, in order and without overlap:
    /// exactly what ``matches(_:)`` found, mapped back to the original text
    /// (so a highlight never marks something other than what matched).
    public func matchRanges(in text: String) -> [Range<String.Index>] {
        guard !needle.isEmpty else { return [] }
        var folded: [UInt8] = []
        var origins: [String.Index] = []  // for each folded byte, the original scalar it came from
        folded.reserveCapacity(text.utf8.count)
        origins.reserveCapacity(text.utf8.count)
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let before = folded.count
            Self.appendFolded(scalars[index], to: &folded)
            origins.append(contentsOf: repeatElement(index, count: folded.count - before))
            index = scalars.index(after: index)
        }
        var ranges: [Range<String.Index>] = []
        var start = 0
        while let found = Self.firstMatch(of: needle, in: folded, from: start) {
            let last = found + needle.count - 1
            let lower = origins[found]
            let upper = scalars.index(after: origins[last])
            ranges.append(lower..<upper)
            // Continue after the last scalar the match touched, so ranges never overlap.
            start = last + 1
            while start < origins.count, origins[start] < upper { start += 1 }
        }
        return ranges
    }

    // MARK: - Folding

    /// `text` folded to lowercase, scalar by scalar, as UTF-8.
    package static func fold(_ text: String) -> [UInt8] {
        var folded: [UInt8] = []
        folded.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars { appendFolded(scalar, to: &folded) }
        return folded
    }

    private static func appendFolded(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
        SearchFolding.fold(scalar) { UTF8.encode($0) { output.append($0) } }
    }

    /// The offset of the first occurrence of `needle` in `haystack` at or after `start`.
    package static func firstMatch(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count - start >= needle.count else { return nil }
        var position = start
        let lastStart = haystack.count - needle.count
        while position <= lastStart {
            if haystack[position] == first, haystack[position..<(position + needle.count)].elementsEqual(needle) {
                return position
            }
            position += 1
        }
        return nil
    }
}
