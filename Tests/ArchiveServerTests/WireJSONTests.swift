import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import TestSupport
import Testing

/// The sync wire's JSON by hand (`WireJSON`) means what the types' `Codable` conformances
/// mean: its writers' bytes decode, by `JSONDecoder` and by its own reader, to the values
/// written; it reads `JSONEncoder`'s bytes to the same values; and on damaged bodies its
/// fast reader either declines (the body then goes to `JSONDecoder`) or reads exactly what
/// `JSONDecoder` reads, never a body `JSONDecoder` refuses.
@Suite(.timeLimit(.minutes(5)))
struct WireJSONTests {
    /// Texts that exercise the escapes and UTF-8: quotes, backslashes, slashes, control
    /// characters, CJK, full-width and half-width forms, combining marks, emoji.
    static let texts = [
        "", "dish", "チーズハンバーグ", "\"quoted\"", "back\\slash", "a/b </script>", "tab\tnew\nline\rcr", "\u{01}\u{1F}\u{7F}",
        "ＡＢＣ ｱｲｳ", "e\u{301}", "😀 emoji 👨‍👩‍👧", "\u{2028}\u{2029}", "\u{0}nul",
    ]

    static func change(_ generator: inout SeededGenerator) -> WireChange {
        func text() -> String {
            (0..<Int.random(in: 1...3, using: &generator)).map { _ in texts.randomElement(using: &generator) ?? "" }.joined()
        }
        let device = DeviceID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }) ?? DeviceID(bytes: [UInt8](repeating: 1, count: 16))!
        let id = [1, Int.max, Int.random(in: 1...1_000_000, using: &generator)].randomElement(using: &generator) ?? 1
        let stamp = ChangeStamp(time: HybridTimestamp(rawValue: Int64.random(in: 0...HybridTimestamp.maximum.rawValue, using: &generator)), device: device)
        let state: FavoriteChange.State = Bool.random(using: &generator) ? .removed : .stored(StoredArchiveObject(
            id: id, photoUrl: text(), category: text(), dishName: text(), shopName: text(), introduction: text(),
            storedAtMilliseconds: [Int64.min, Int64.max, -1, 0, Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)]
                .randomElement(using: &generator) ?? 0))
        return WireChange(FavoriteChange(id: id, stamp: stamp, state: state))
    }

    static func push(_ generator: inout SeededGenerator) -> SyncPushRequest {
        let device = DeviceID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })!
        return SyncPushRequest(
            device: device, through: Int64.random(in: 0...Int64.max, using: &generator), seen: Int64.random(in: 0...10, using: &generator),
            changes: (0..<Int.random(in: 0...6, using: &generator)).map { _ in change(&generator) })
    }

    static func page(_ generator: inout SeededGenerator) -> SyncPullResponse {
        SyncPullResponse(
            feed: String(repeating: "ab", count: 16), changes: (0..<Int.random(in: 0...6, using: &generator)).map { _ in change(&generator) },
            cursor: Int64.random(in: 0...Int64.max, using: &generator), hasMore: Bool.random(using: &generator), reset: Bool.random(using: &generator),
            pushed: Int64.random(in: 0...99, using: &generator), maximumPushBytes: Bool.random(using: &generator) ? 4_194_304 : nil,
            end: Bool.random(using: &generator) ? Int64.random(in: 0...Int64.max, using: &generator) : nil)
    }

    @Test(arguments: 0..<40)
    func theWritersAndTheReaderMeanWhatCodableMeans(seed: Int) throws {
        var generator = SeededGenerator(seed: UInt64(seed))
        let push = Self.push(&generator), page = Self.page(&generator)
        // The writers' bytes, read both ways.
        #expect(try JSONDecoder().decode(SyncPushRequest.self, from: Data(WireJSON.encode(push))) == push)
        #expect(try JSONDecoder().decode(SyncPullResponse.self, from: Data(WireJSON.encode(page))) == page)
        #expect(try Self.fast(SyncPushRequest.self, WireJSON.encode(push)) == push, "the fast reader declined the writer's push")
        #expect(try Self.fast(SyncPullResponse.self, WireJSON.encode(page)) == page, "the fast reader declined the writer's page")
        // JSONEncoder's bytes (escaped slashes, its key order), read by the fast reader.
        #expect(try Self.fast(SyncPushRequest.self, Array(JSONEncoder().encode(push))) == push)
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys, .prettyPrinted]
        #expect(try Self.fast(SyncPullResponse.self, Array(sorted.encode(page))) == page)
    }

    /// What the fast reader alone makes of `bytes` (`nil`: it declines them).
    static func fast<Value: WireJSONDecodable>(_ type: Value.Type, _ bytes: [UInt8]) throws -> Value? {
        bytes.withUnsafeBytes { raw in
            var reader = WireJSONReader(raw)
            guard let value = Value.read(&reader), reader.atEnd() else { return nil }
            return value
        }
    }

    @Test(arguments: 0..<40)
    func onADamagedBodyTheFastReaderDeclinesOrAgreesWithJSONDecoder(seed: Int) throws {
        var generator = SeededGenerator(seed: UInt64(1_000 + seed))
        let original = WireJSON.encode(Self.push(&generator))
        let pieces: [[UInt8]] = [
            Array(#""device":"#.utf8), Array("1.0".utf8), Array("1e3".utf8), Array("-0".utf8), Array("01".utf8), Array("null".utf8),
            Array(#"\ud800"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\/"#.utf8), [0x00], [0xFF], [0xC3], Array(" \t\n".utf8),
            Array(#","x":[1,{"y":true}]"#.utf8), Array("9223372036854775808".utf8), Array(#"{"#.utf8), Array(#"]"#.utf8), Array(#"""#.utf8),
        ]
        var agreed = 0, declined = 0
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let at = Int.random(in: 0...bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where at < bytes.count: bytes.remove(at: at)
                case 1: bytes.insert(contentsOf: pieces.randomElement(using: &generator) ?? [], at: at)
                default: if at < bytes.count { bytes[at] = UInt8.random(in: 0...255, using: &generator) }
                }
            }
            let reference = try? JSONDecoder().decode(SyncPushRequest.self, from: Data(bytes))
            if let fast = try Self.fast(SyncPushRequest.self, bytes) {
                #expect(reference == fast, "the fast reader read \(String(decoding: bytes, as: UTF8.self).prefix(300)) otherwise than JSONDecoder")
                agreed += 1
            } else {
                declined += 1
            }
            // Whatever the path, WireJSON.decode answers as JSONDecoder does.
            #expect(reference == (try? WireJSON.decode(SyncPushRequest.self, from: bytes)))
        }
        #expect(agreed > 0 && declined > 0, "the damage never reached both outcomes: agreed \(agreed), declined \(declined)")
    }

    @Test func theSubsetsEdgesAreDeclinedOrReadAsJSONDecoderReadsThem() throws {
        let device = String(repeating: "0a", count: 16)
        func body(_ changes: String, extra: String = "") -> [UInt8] {
            Array(#"{"device":"\#(device)","through":1,"seen":0,"changes":[\#(changes)]\#(extra)}"#.utf8)
        }
        let declined = [
            body(#"{"id":1.0,"stamp":1,"device":"\#(device)"}"#), body(#"{"id":1e0,"stamp":1,"device":"\#(device)"}"#),
            body(#"{"id":1,"id":2,"stamp":1,"device":"\#(device)"}"#), body(#"{"id":1,"stamp":1,"device":"\ud800"}"#),
            body(#"{"id":01,"stamp":1,"device":"\#(device)"}"#), body("", extra: #","x":1.5"#),
        ]
        for bytes in declined { #expect(try Self.fast(SyncPushRequest.self, bytes) == nil, "\(String(decoding: bytes, as: UTF8.self))") }
        let read = [
            body(""), body(#"{"id":1,"stamp":-0,"device":"\#(device)","favorite":null}"#), body(#"{"device":"\#(device)","stamp":1,"id":1,"x":{"y":[null,true]}}"#),
            body(#"{"id":1,"stamp":1,"device":"\u0030a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"}"#),
        ]
        for bytes in read {
            let fast = try #require(try Self.fast(SyncPushRequest.self, bytes), "\(String(decoding: bytes, as: UTF8.self))")
            #expect(fast == (try JSONDecoder().decode(SyncPushRequest.self, from: Data(bytes))))
        }
    }
}
