import ArchiveFront
import Testing

@Suite(.timeLimit(.minutes(5)))
struct TerminalTextTests {
    @Test(arguments: [
        ("\u{1B}]0;pwned\u{07}title", "\\u{1B}]0;pwned\\u{7}title"),  // OSC: sets the window title
        ("line\rforged", "line\\rforged"),                          // a carriage return forges a line
        ("a\nb\tc", "a\\nb\\tc"),
        ("\u{9B}31m", "\\u{9B}31m"),                                // C1 CSI
        ("del\u{7F}", "del\\u{7F}"),
        ("\u{202E}evil", "\\u{202E}evil"),                          // bidi override
        ("\u{2066}iso\u{2069}", "\\u{2066}iso\\u{2069}"),
        ("チーズ 🍜 café", "チーズ 🍜 café"),                         // ordinary text is untouched
        ("", ""),
    ])
    func controlCharactersBecomeVisibleEscapes(input: String, shown: String) {
        #expect(TerminalText.visible(input) == shown)
        #expect(!TerminalText.visible(input).unicodeScalars.contains(where: TerminalText.isUnsafe))
    }
}

@Suite(.timeLimit(.minutes(5)))
struct HighlightedTextTests {
    func marked(_ text: String, _ keyword: String) -> String {
        HighlightedText(text, keyword: SearchKeyword(keyword)).segments.map { $0.isMatch ? "[\($0.text)]" : $0.text }.joined()
    }

    @Test func matchesAreMarkedWhereTheSearchMatched() {
        #expect(marked("Cheese and more CHEESE", "cheese") == "[Cheese] and more [CHEESE]")
        #expect(marked("チーズハンバーグとチーズ", "チーズ") == "[チーズ]ハンバーグと[チーズ]")
        #expect(marked("no match here", "チーズ") == "no match here")
        #expect(marked("anything", "   ") == "anything")
        #expect(marked("", "x") == "")
        #expect(marked("aaaa", "aa") == "[aa][aa]")
    }

    @Test func highlightingAgreesWithMatchingWhereFoundationWouldNot() {
        // Foundation's case-insensitive search folds ß to ss; the catalog's search does not.
        let keyword = SearchKeyword("ss")
        #expect(!keyword.matches("Straße"))
        #expect(marked("Straße", "ss") == "Straße")
        // İ lowercases to two scalars (i + combining dot): the match maps back to the whole letter.
        #expect(SearchKeyword("i").matches("İstanbul"))
        #expect(marked("İstanbul", "i") == "[İ]stanbul")
        // Every text that matches has a highlight, and only those.
        for (text, word) in [("Straße", "ss"), ("ÉCOLE", "école"), ("ＡＢＣ", "ａｂｃ"), ("x\u{1B}y", "\u{1B}")] {
            let ranges = SearchKeyword(word).matchRanges(in: text)
            #expect(SearchKeyword(word).matches(text) == !ranges.isEmpty, "\(text) / \(word)")
        }
    }

    @Test func highlightedPartsAreTerminalSafe() {
        #expect(marked("evil\u{1B}[2Jcheese", "cheese") == "evil\\u{1B}[2J[cheese]")
    }
}
