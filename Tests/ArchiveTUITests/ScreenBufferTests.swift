@testable import ArchiveTUI
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ScreenBufferTests {
    @Test func wideGlyphsTakeTwoCells() {
        var buffer = ScreenBuffer(width: 10, height: 1)
        let end = buffer.write("寿司ab", x: 0, y: 0)
        #expect(end == 6)
        #expect(buffer[0, 0].text == "寿")
        #expect(buffer[1, 0].isContinuation)
        #expect(buffer[2, 0].text == "司")
        #expect(buffer[4, 0].text == "a")
        #expect(buffer.line(0) == "寿司ab    ")
    }

    @Test func aWideGlyphIsNeverCutInHalfAtTheRightEdge() {
        var buffer = ScreenBuffer(width: 5, height: 1)
        buffer.write("ab寿司", x: 0, y: 0)
        // 寿 fits in columns 2-3; 司 would need columns 4-5: a space stands in its place.
        #expect(buffer.line(0) == "ab寿 ")
        #expect(!buffer[4, 0].isContinuation)

        var limited = ScreenBuffer(width: 10, height: 1)
        limited.write("寿司寿司", x: 1, y: 0, limit: 6)
        #expect(limited.lines[0] == " 寿司")
        #expect(limited[5, 0].text == " " && !limited[6, 0].isContinuation)
    }

    @Test func overwritingHalfAWideGlyphBlanksTheOtherHalf() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.write("寿司", x: 0, y: 0)
        buffer.write("x", x: 1, y: 0)
        #expect(buffer.line(0) == " x司  ")
        buffer.write("y", x: 2, y: 0)
        #expect(buffer.line(0) == " xy   ")
    }

    @Test(arguments: [
        ("abc", 3), ("寿司", 4), ("ｶﾀｶﾅ", 4), ("ＡＢ", 4), ("e\u{301}", 1), ("🍣", 2), ("♥", 1), ("한국", 4), ("", 0),
    ])
    func displayWidths(text: String, width: Int) {
        #expect(DisplayWidth.of(text) == width)
    }

    @Test func truncationEndsWithAnEllipsisAndRespectsWideGlyphs() {
        #expect(DisplayWidth.truncate("チーズハンバーグ", to: 7) == "チーズ…")
        #expect(DisplayWidth.truncate("チーズ", to: 6) == "チーズ")
        #expect(DisplayWidth.truncate("abcdef", to: 4) == "abc…")
        #expect(DisplayWidth.truncate("abc", to: 0) == "")
    }

    @Test func theKeywordIsHighlightedInEveryOccurrence() {
        var buffer = ScreenBuffer(width: 30, height: 1)
        ArchiveScreen.writeHighlighted(&buffer, "チーズとチーズ", keyword: "チーズ", x: 0, y: 0, base: .plain, limit: 30)
        let highlighted = (0..<14).map { buffer[$0, 0].style == .highlight }
        #expect(highlighted == Array(repeating: true, count: 6) + [false, false] + Array(repeating: true, count: 6))
    }
}
