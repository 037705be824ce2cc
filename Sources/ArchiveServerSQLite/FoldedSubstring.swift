import SQLite

/// The page's search rule on the SQLite backend: whether a text holds the search's text,
/// ASCII letters compared without case and every other byte as it is, in time linear in
/// the two (Knuth–Morris–Pratt over the bytes): a search of `aaa…ab` through favorites of
/// `aaa…a` costs what any other does. PostgreSQL runs the same rule as
/// `strpos(lower(text), lower(search COLLATE "C"))` (`PostgresSyncStorage+Web.swift`);
/// `FoldedSubstringDifferentialTests` proves the two equal.
///
/// Before, SQLite's `LIKE '%…%'` backtracked: 199 `a`s and a `b` through 20,000 favorites
/// of 10,000 `a`s held the service's one connection for 10 s a page.
enum FoldedSubstring {
    /// The SQL function `archive_contains(text, search)`: 1 when `text` holds `search`.
    static let sqlFunction = TextPredicate(name: "archive_contains") { text, search in contains(text, search) }

    /// Whether `text` holds `search` (an empty search is in every text).
    static func contains(_ text: UnsafeBufferPointer<UInt8>, _ search: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = search.count
        guard count > 0 else { return true }
        guard text.count >= count else { return false }
        // The folded search and its border table on the stack (a search is at most 200 code
        // points, 800 bytes): nothing is allocated a row.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { needle in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { border in
                for index in 0..<count { needle[index] = folded(search[index]) }
                // border[i]: the longest proper prefix of needle[...i] that is also its suffix.
                border[0] = 0
                var length = 0
                for index in 1..<count {
                    while length > 0, needle[index] != needle[length] { length = border[length - 1] }
                    if needle[index] == needle[length] { length += 1 }
                    border[index] = length
                }
                let first = needle[0]
                // The first byte in both cases (a letter's capital), for the skip to it.
                let firstCapital = first >= 0x61 && first <= 0x7A ? first & ~0x20 : first
                var matched = 0
                var position = 0
                let end = text.count
                while position < end {
                    if matched == 0 {
                        // Nothing matched yet: skip to the next byte that can start a match,
                        // the loop most bytes of a text that does not hold the search take.
                        while position < end, text[position] != first, text[position] != firstCapital { position += 1 }
                        guard position < end else { return false }
                        if end - position < count { return false }
                    }
                    let byte = folded(text[position])
                    while matched > 0, byte != needle[matched] { matched = border[matched - 1] }
                    if byte == needle[matched] { matched += 1 }
                    if matched == count { return true }
                    position += 1
                }
                return false
            }
        }
    }

    /// `byte` with an ASCII capital made small (what `lower` of the C collation does).
    @inline(__always)
    static func folded(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
