@testable import ArchiveTransfer
import TestSupport
import Testing

/// The import's UTF-8 check against the standard library's, which it replaces on the hot path.
@Suite(.timeLimit(.minutes(5)))
struct UTF8ValidationTests {
    /// Bytes around every boundary of RFC 3629's table.
    static let interesting: [UInt8] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC,
        0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ]

    func agrees(_ bytes: [UInt8]) -> Bool {
        UTF8Validation.isValid(bytes) == (String(validating: bytes, as: UTF8.self) != nil)
    }

    @Test func everySequenceOfUpToThreeInterestingBytesAgreesWithTheStandardLibrary() {
        var disagreements: [[UInt8]] = []
        for a in Self.interesting {
            if !agrees([a]) { disagreements.append([a]) }
            for b in Self.interesting {
                if !agrees([a, b]) { disagreements.append([a, b]) }
                for c in Self.interesting where !agrees([a, b, c]) { disagreements.append([a, b, c]) }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    @Test func fourByteFormsAndRandomTextAgree() {
        for lead: UInt8 in [0xF0, 0xF1, 0xF3, 0xF4, 0xF5] {
            for second in Self.interesting {
                for tail in [[0x80, 0x80], [0xBF, 0xBF], [0x80, 0x41], [0xC0, 0x80]] as [[UInt8]] {
                    #expect(agrees([lead, second] + tail), "\([lead, second] + tail)")
                }
            }
        }
        var generator = SeededGenerator(seed: 8_191)
        for _ in 0..<20_000 {
            // Mostly valid text with a few bytes flipped: both answers occur.
            var bytes = Array("チーズ cheese 🧀 ñ".utf8)
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            #expect(agrees(bytes), "\(bytes)")
        }
        #expect(UTF8Validation.isValid(Array("チーズ".utf8)))
        #expect(!UTF8Validation.isValid([0xED, 0xA0, 0x80]), "a surrogate")
        #expect(!UTF8Validation.isValid([0xC0, 0xAF]), "an overlong /")
    }
}
