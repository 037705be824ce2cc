import ArchiveCore
import ArchiveStorage
import Foundation
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

    /// The title bar's right end says where sync stands: nothing for a database that
    /// never synced and keeps no server; then when it last synced and what waits, a sync
    /// under way, a failed one, or ^S's notice.
    @Test func theTitleBarSaysWhereSyncStands() {
        var state = AppState()
        var view = ViewState()
        func title() -> String { ArchiveScreen.render(state: state, view: view, width: 100, height: 24).line(0) }
        state.syncState.status = SyncStatus(lastSync: nil, waiting: 3)
        #expect(!title().contains("⇅"), "no server, never synced: \(title())")
        state.settingsState.entries = [SettingEntry(setting: .syncServer, storedValue: .string("http://127.0.0.1:8080"))]
        #expect(title().contains("⇅ not synced yet · 3 waiting"), "\(title())")
        let noon = Calendar.current.date(from: DateComponents(year: 2026, month: 11, day: 27, hour: 12, minute: 5)) ?? Date()
        state.syncState.status = SyncStatus(lastSync: noon, waiting: 1_234)
        #expect(title().contains("⇅ synced 12:05 · 1,234 waiting"), "\(title())")
        state.syncState.isSyncing = true
        #expect(title().contains("⇅ syncing…"), "\(title())")
        state.syncState.isSyncing = false
        state.syncState.errorMessage = "cannot reach http://127.0.0.1:8080\u{1B}]0;x\u{07}"
        #expect(title().contains("⇅ sync failed (^S: again): cannot reach"), "\(title())")
        #expect(!title().contains("\u{1B}"), "a server's text drawn raw: \(title())")
        view.notice = "no sync server: archive settings set syncServer URL"
        #expect(title().contains("no sync server"), "\(title())")
        // Too narrow for it beside the title: left out rather than drawn over the tabs.
        #expect(!ArchiveScreen.render(state: state, view: view, width: 40, height: 12).line(0).contains("sync"))
    }
}
