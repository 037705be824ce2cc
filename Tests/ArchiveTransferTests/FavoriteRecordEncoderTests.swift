@testable import ArchiveTransfer
import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// The export encodes rows from their bytes: it must write exactly what
/// encoding the decoded objects writes, whatever the text.
@Suite(.timeLimit(.minutes(5)))
struct FavoriteRecordEncoderTests {
    @Test func aRowEncodesExactlyAsItsObject() {
        var generator = SeededGenerator(seed: 4_242)
        let alphabet = Array("aZ09 \"\\/\n\r\t\u{0}\u{1F}\u{7F}チーズ🧀é\u{202E}\u{FFFD}")
        func text(_ maximum: Int) -> String {
            String((0..<Int.random(in: 0...maximum, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        let objects = (1...300).map { id in
            StoredArchiveObject(
                id: id, photoUrl: text(20), category: text(5), dishName: "d" + text(10), shopName: text(10),
                introduction: text(60), storedAt: Date(millisecondsSince1970: Int64.random(in: StoredArchiveObject.storedAtRange, using: &generator)))
        }
        let page = StoredArchivePage(objects: objects, nextCursor: nil)
        for (row, object) in zip(page, objects) {
            var fromRow: [UInt8] = []
            var fromObject: [UInt8] = []
            FavoriteRecordEncoder.append(row, to: &fromRow)
            FavoriteRecordEncoder.append(object, to: &fromObject)
            #expect(fromRow == fromObject, "id \(object.id), seed \(generator.seed)")
            // An independent reader gets every text back.
            let parsed = try? JSONSerialization.jsonObject(with: Data(fromRow)) as? [String: Any]
            #expect(parsed?["introduction"] as? String == object.introduction, "id \(object.id)")
            #expect(parsed?["dishName"] as? String == object.dishName && parsed?["photoUrl"] as? String == object.photoUrl)
        }
    }

    /// A text that is not well-formed UTF-8 in the database (written by another tool)
    /// is repaired with U+FFFD as decoding does. Escaping and the UTF-8 check are one
    /// pass: bytes whose check fails partway, after an escape was written (the second
    /// case), leave nothing behind.
    @Test(arguments: [
        ("41E382FF42C0AF", #""shopName":"A\#u{FFFD}\#u{FFFD}B\#u{FFFD}\#u{FFFD}""#),
        ("41220AE382FF42", #""shopName":"A\"\n\#u{FFFD}\#u{FFFD}B""#),
    ])
    func invalidUTF8InTheDatabaseIsRepairedAsDecodingDoes(shopNameHex: String, expected: String) throws {
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(StoredArchiveObject(
            id: 5, photoUrl: "u", category: "c", dishName: "d", shopName: "s", introduction: "i",
            storedAt: Date(millisecondsSince1970: 0)))
        try database.favorites.queue.write { db in
            try db.execute("UPDATE archive_objects SET shop_name = CAST(X'\(shopNameHex)' AS TEXT) WHERE id = 5")
        }
        let row = try #require(try database.favorites.page(after: nil, limit: 1).first)
        var bytes: [UInt8] = []
        FavoriteRecordEncoder.append(row, to: &bytes)
        let json = try #require(String(validating: bytes, as: UTF8.self))
        #expect(json.contains(expected), "\(json)")
        #expect(json == FavoriteRecordEncoder.encode(row.object))
    }

    /// JSON's escaping of `text`, written scalar by scalar, independently of the encoder.
    static func referenceEscaped(_ text: String) -> [UInt8] {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                output += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return Array(output.utf8)
    }

    /// On random bytes (ASCII, characters to escape, lead and continuation bytes),
    /// the one-pass check agrees with the standard library's, and valid bytes are
    /// escaped as an independent, scalar-by-scalar escaper does.
    @Test func theOnePassCheckAgreesWithTheStandardLibrary() {
        var generator = SeededGenerator(seed: 77)
        let alphabet: [UInt8] = [0x41, 0x22, 0x5C, 0x0A, 0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC2, 0xC0, 0xE0, 0xE3, 0xED, 0xA0, 0x82, 0xF0, 0xF4, 0x90, 0x8F, 0xFF]
        var invalid = 0
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            var output: [UInt8] = [0x2A]
            let valid = bytes.withUnsafeBufferPointer { FavoriteRecordEncoder.appendEscapedIfValid($0, to: &output) }
            #expect(valid == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes), seed \(generator.seed)")
            var expected: [UInt8] = [0x2A]
            if valid {
                expected += Self.referenceEscaped(String(decoding: bytes, as: UTF8.self))
            } else {
                invalid += 1
            }
            #expect(output == expected, "\(bytes)")
        }
        #expect(invalid > 1_000, "the alphabet makes invalid bytes often")
    }

    @Test func decimalsAreWrittenWithoutAString() {
        for value in [0, 1, 9, 10, 17, 1_000_000, Int.max, -1, -42, Int.min] {
            var output: [UInt8] = []
            FavoriteRecordEncoder.appendDecimal(value, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == String(value))
        }
    }
}
