@testable import ArchiveSearch
import TestSupport
import Testing

/// The keys of the search runs against the grams of the FTS5 index they stand for.
@Suite(.timeLimit(.minutes(5)))
struct SearchGramKeyTests {
    /// Texts with what the folding and the decoder make hard: expanding foldings
    /// (`İ`), titlecase, non-BMP scalars, empty and one-scalar texts, ill-formed bytes.
    static let texts: [[UInt8]] = [
        "", "a", "ab", "abc", "İstanbul", "ǅemal", "ΣΟΦΙΑ", "蕎麦寿司", "🍜ラーメン🍜", "Crème brûlée",
        "STRASSE straße", "番号 12346", "Ｆｕｌｌ width",
    ].map { Array($0.utf8) } + [[0xFF], [0x61, 0xC3], [0xE3, 0x81], [0x61, 0x00, 0x62], [0xED, 0xA0, 0x80, 0x41]]

    /// The keys of `utf8`'s grams, through ``SearchGrams``: each gram's bytes
    /// decoded back to its scalars (`0xFF` is the padding).
    static func keysThroughGrams(_ utf8: [UInt8]) -> [SearchGramKey] {
        var keys: [SearchGramKey] = []
        utf8.withUnsafeBytes { bytes in
            SearchGrams.forEachGram(inUTF8: bytes) { gram in
                var values: [UInt32] = []
                var rest = Array(gram)
                while let padding = rest.lastIndex(of: SearchGrams.padding) {
                    rest.remove(at: padding)
                    values.insert(SearchGramKey.padding, at: 0)
                }
                let scalars = String(decoding: rest, as: UTF8.self).unicodeScalars.map(\.value)
                values = scalars + values
                keys.append(SearchGramKey(values[0], values[1], values[2]))
                return true
            }
        }
        return keys
    }

    static func keys(_ utf8: [UInt8]) -> [SearchGramKey] {
        var keys: [SearchGramKey] = []
        utf8.withUnsafeBytes { SearchGramKey.forEachKey(inUTF8: $0) { keys.append($0) } }
        return keys
    }

    @Test("every gram SearchGrams cuts has its key, in order", arguments: texts)
    func keysFollowGrams(_ text: [UInt8]) {
        #expect(Self.keys(text) == Self.keysThroughGrams(text))
    }

    @Test("generated texts: the keys follow the grams")
    func generatedKeysFollowGrams() {
        var random = SeededGenerator(seed: 0x5EA4C4)
        let pieces = Self.texts.filter { !$0.isEmpty }
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 1...6, using: &random)).flatMap { _ in pieces.randomElement(using: &random) ?? [] }
            #expect(Self.keys(text) == Self.keysThroughGrams(text), "seed \(random.seed), text \(text)")
        }
    }

    /// The hand-written decoder's fast paths (ASCII, caseless three-byte scalars)
    /// and its fallback agree with the standard library's decoder on any bytes:
    /// the bytes that start or end a fast path's range, every lead byte cut short
    /// or followed by a wrong byte, overlong forms and surrogates.
    @Test("random bytes around the fast paths' edges: the keys follow the grams")
    func randomBytesKeysFollowGrams() {
        var random = SeededGenerator(seed: 0xB17E5)
        // ASCII around `A`...`Z`, continuation bytes, and leads of every length,
        // E3...E9 (the caseless range) beside E0, E2, EA and ED.
        let bytes: [UInt8] = [0x00, 0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x7A, 0x7F, 0x80, 0x81, 0xA0, 0xBF, 0xC0, 0xC3,
                              0xE0, 0xE2, 0xE3, 0xE5, 0xE9, 0xEA, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in
                Bool.random(using: &random) ? bytes.randomElement(using: &random) ?? 0 : UInt8.random(in: 0x80...0xBF, using: &random)
            }
            #expect(Self.keys(text) == Self.keysThroughGrams(text), "seed \(random.seed), bytes \(text)")
        }
        // Every scalar at the caseless range's edges, and its neighbours.
        for value: UInt32 in [0x2FFF, 0x3000, 0x3001, 0x9FFE, 0x9FFF, 0xA000, 0x0800, 0x0FFF, 0xD7FF, 0xE000, 0xFFFF] {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = Array("A\(scalar)Z\(scalar)\(scalar)".utf8)
            #expect(Self.keys(text) == Self.keysThroughGrams(text), "U+\(String(value, radix: 16))")
        }
    }

    /// A text that contains a keyword holds a key in each of the keyword's lookups:
    /// the index never misses a match.
    @Test("every lookup of a keyword finds a key of every text that contains it")
    func lookupsCoverMatches() throws {
        var random = SeededGenerator(seed: 0x100C)
        let words = ["蕎麦", "寿司", "チーズ", "İstanbul", "ǅemal", "ΣΟΦΙΑ", "🍜", "Crème", "番号 12346", "ab", "x"]
        for _ in 0..<400 {
            let text = (0..<Int.random(in: 1...4, using: &random)).map { _ in words.randomElement(using: &random) ?? "" }.joined()
            let scalars = Array(text.unicodeScalars)
            let length = Int.random(in: 1...min(scalars.count, 20), using: &random)
            let start = Int.random(in: 0...(scalars.count - length), using: &random)
            var keywordText = String(String.UnicodeScalarView(scalars[start..<(start + length)]))
            if Bool.random(using: &random) { keywordText = keywordText.uppercased() }
            let keyword = SearchKeyword(keywordText)
            guard keyword.matches(text), let lookups = SearchGramKey.lookups(for: keyword) else { continue }
            let keys = Self.keys(Array(text.utf8))
            for lookup in lookups {
                #expect(keys.contains { lookup.contains($0) }, "\(keywordText.debugDescription) in \(text.debugDescription)")
            }
        }
    }

    @Test("an empty keyword has no lookups; a long one at most maximumWindows")
    func lookupShapes() throws {
        #expect(SearchGramKey.lookups(for: SearchKeyword("  ")) == nil)
        let one = try #require(SearchGramKey.lookups(for: SearchKeyword("蕎")))
        #expect(one.count == 1 && one[0].upperBound.rawValue - one[0].lowerBound.rawValue == 0x1F_FFFF)
        let two = try #require(SearchGramKey.lookups(for: SearchKeyword("寿司")))
        #expect(two.count == 1 && two[0].upperBound.rawValue - two[0].lowerBound.rawValue == 0x3FF)
        let long = try #require(SearchGramKey.lookups(for: SearchKeyword(String(repeating: "あいうえおかきくけこ", count: 1000))))
        #expect(long.count <= SearchGrams.maximumWindows + 1 && long.allSatisfy { $0.lowerBound == $0.upperBound })
        #expect(SearchGramKey.lookups(for: SearchKeyword("a\u{0}b"))?.count == 1)
    }
}
