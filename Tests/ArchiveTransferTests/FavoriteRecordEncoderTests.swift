@testable import ArchiveTransfer
import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing

/// The export encodes rows from their bytes: it must write exactly what
/// encoding the decoded objects writes, whatever the text.
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

    @Test func invalidUTF8InTheDatabaseIsRepairedAsDecodingDoes() throws {
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(StoredArchiveObject(
            id: 5, photoUrl: "u", category: "c", dishName: "d", shopName: "s", introduction: "i",
            storedAt: Date(millisecondsSince1970: 0)))
        try database.favorites.queue.write { db in
            try db.execute("UPDATE archive_objects SET shop_name = CAST(X'41E382FF42C0AF' AS TEXT) WHERE id = 5")
        }
        let row = try #require(try database.favorites.page(after: nil, limit: 1).first)
        var bytes: [UInt8] = []
        FavoriteRecordEncoder.append(row, to: &bytes)
        let json = try #require(String(validating: bytes, as: UTF8.self))
        #expect(json.contains(#""shopName":"A\#u{FFFD}\#u{FFFD}B\#u{FFFD}\#u{FFFD}""#), "\(json)")
        #expect(json == FavoriteRecordEncoder.encode(row.object))
    }
}
