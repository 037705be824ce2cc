import ArchiveAPI
@testable import ArchiveHTTP
import ArchiveCore
import ArchiveTransfer
import ArchiveStorage
import Foundation
import TestSupport
import Testing
import ArchiveSyncModel

/// Seeded, reproducible hostile input for the import parser and the API decoder:
/// no crash, no partial write, every failure a typed, readable error.
@Suite(.timeLimit(.minutes(5)))
struct GeneratedInputTests {
    static let cases = 10_000

    static let validRecord = #"{"id":17,"photoUrl":"https://p/17.jpg","category":"洋食","dishName":"チーズハンバーグ","shopName":"グリル銀河","introduction":"肉汁あふれる","storedAt":"2026-01-01T00:00:00.000Z"}"#

    static let tokens: [[UInt8]] = [
        "null", "true", "false", "-", "1e999", "\"", "\\", "\\u0000", "\\ud800", "\\uDFFF", "{", "}", "[", "]", ",", ":",
        "'; DROP TABLE archive_objects; --", "\" OR 1=1 --", "99999999999999999999", "-9223372036854775809", "-1", "0",
        "0.5", "NaN", "\u{0}", "\u{FEFF}", "🍣", "寿司", "\"storedAt\":\"yesterday\"", "\"id\":", "\\n", "\t",
    ].map { Array($0.utf8) } + [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]]

    /// A mutation of a small valid file: byte flips, cuts, insertions, duplications.
    static func mutate(_ base: [UInt8], with generator: inout SeededGenerator) -> [UInt8] {
        var bytes = base
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            guard !bytes.isEmpty else { break }
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
            case 1: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...12, using: &generator)))
            case 2: bytes.insert(contentsOf: tokens.randomElement(using: &generator)!, at: position)
            case 3: bytes = Array(bytes.prefix(position))
            case 4: bytes.insert(contentsOf: bytes[position...].prefix(40), at: position)
            default: bytes.replaceSubrange(position..<min(bytes.count, position + 3), with: tokens.randomElement(using: &generator)!)
            }
        }
        return bytes
    }

    @Test func tenThousandMutatedImportFilesNeverCrashAndNeverWriteHalfAFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("case.json")
        let database = try ArchiveDatabase.inMemory()
        let base = Array("[\(Self.validRecord),\(Self.validRecord.replacingOccurrences(of: "17", with: "33"))]".utf8)
        var generator = SeededGenerator(seed: 2026)
        var accepted = 0
        var refused = 0
        for index in 0..<Self.cases {
            if index % 100 == 0 { await Task.yield() }
            let bytes = Self.mutate(base, with: &generator)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let before = try database.favorites.count()
            let storedBefore = Set(try database.favorites.allObjects().map(\.id))
            do {
                let summary = try FavoritesImporter(path: path).run(into: database.favorites)
                accepted += 1
                // Exactly the IDs stored before plus those of the file (read again, independently).
                let fileIDs = try Self.ids(inFile: path)
                #expect(summary.records == fileIDs.count, "case \(index)")
                #expect(summary.imported == Set(fileIDs).count, "case \(index)")
                #expect(try database.favorites.count() == storedBefore.union(fileIDs).count, "case \(index)")
            } catch let error as FavoritesImportError {
                refused += 1
                #expect(!error.description.isEmpty)
                #expect(try database.favorites.count() == before, "case \(index) wrote part of a refused file")
            } catch {
                Issue.record("case \(index): an untyped error \(error) for \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(accepted + refused == Self.cases)
        #expect(refused > Self.cases / 2)
        // Whatever was accepted was stored literally: SQL in a field is just text.
        #expect(try database.integrityReport().isOK)
    }

    @Test func tenThousandMutatedAPIBodiesDecodeOrFailWithATypedError() async throws {
        let base = Array("[\(Self.validRecord)]".utf8)
        var generator = SeededGenerator(seed: 1984)
        var decoded = 0
        for index in 0..<Self.cases {
            if index % 100 == 0 { await Task.yield() }
            let bytes = Self.mutate(base, with: &generator)
            do {
                _ = try HTTPArchiveRepository.decode([ArchiveSceneEntity].self, from: Data(bytes), url: "http://127.0.0.1/archive_images")
                decoded += 1
            } catch let error as ArchiveAPIError {
                switch error {
                case .malformedJSON, .unexpectedShape: break
                default: Issue.record("case \(index): unexpected \(error)")
                }
            } catch {
                Issue.record("case \(index): an untyped error \(error)")
            }
        }
        #expect(decoded < Self.cases)
    }

    @Test func sqlLikeKeywordsAndCategoriesAreTakenLiterally() async throws {
        let database = try ArchiveDatabase.inMemory()
        let hostile = "'; DROP TABLE archive_objects; --"
        try database.favorites.create(StoredArchiveObject(
            id: 1, photoUrl: hostile, category: "洋食' OR '1'='1", dishName: hostile, shopName: "\" OR 1=1 --", introduction: "%_*"))
        #expect(try database.favorites.object(id: 1)?.dishName == hostile)
        let catalog = BundledArchiveRepository()
        #expect(try await catalog.getArchiveResponse(keyword: hostile, category: "").isEmpty)
        #expect(try await catalog.getArchiveResponse(keyword: "", category: "洋食' OR '1'='1").isEmpty)
        #expect(try await catalog.getArchiveResponse(keyword: "%", category: "").isEmpty)
        #expect(try database.favorites.count() == 1)
        #expect(try database.integrityReport().isOK)
    }

    /// The IDs of the records of an import file, in order, read by Foundation's
    /// `JSONSerialization`: a parser independent of the importer's own
    /// (`FavoritesJSONReader`), so that a file the importer misreads cannot agree with itself.
    static func ids(inFile path: String) throws -> [Int] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let records = try #require(JSONSerialization.jsonObject(with: data) as? [[String: Any]], "not an array of objects")
        return try records.map { record in
            let id = try #require(record["id"] as? NSNumber, "a record without a numeric id: \(record)")
            return id.intValue
        }
    }
}
