@testable import ArchiveTUI
import Testing

@Suite(.timeLimit(.minutes(5)))
struct KeyDecoderTests {
    func decode(_ bytes: [UInt8]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(bytes)
    }

    @Test func textControlKeysAndEscapeSequences() {
        #expect(decode(Array("aチ".utf8)) == [.character("a"), .character("チ")])
        #expect(decode([0x0D, 0x09, 0x7F, 0x03, 0x14]) == [.enter, .tab, .backspace, .control("c"), .control("t")])
        #expect(decode([0x1B]) == [.escape])
        #expect(decode(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D".utf8)) == [.up, .down, .right, .left])
        #expect(decode(Array("\u{1B}[5~\u{1B}[6~\u{1B}[H\u{1B}[F\u{1B}[3~\u{1B}[Z".utf8)) == [.pageUp, .pageDown, .home, .end, .delete, .backTab])
        #expect(decode(Array("\u{1B}OA\u{1B}OQ\u{1B}[12~".utf8)) == [.up, .function(2), .function(2)])
    }

    @Test func aCharacterSplitAcrossReadsIsDecodedOnce() {
        var decoder = KeyDecoder()
        let bytes = Array("ズ".utf8)
        #expect(decoder.decode(bytes[0..<1]) == [])
        #expect(decoder.decode(bytes[1...]) == [.character("ズ")])
    }
}
