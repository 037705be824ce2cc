@testable import ArchiveTransfer
import ArchiveStorage
import Foundation
import TestSupport
import Testing
import ArchiveSyncModel

@Suite(.timeLimit(.minutes(5)))
struct TransferTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func read(_ text: String) throws -> [StoredArchiveObject] {
        let path = directory.path("in-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let handle = try #require(FileDescriptorHandle(forReadingAtPath: path))
        var reader = FavoritesJSONReader(handle: handle, defaultStoredAt: Date(millisecondsSince1970: 42))
        var objects: [StoredArchiveObject] = []
        while let object = try reader.next() { objects.append(object) }
        return objects
    }

    @Test(arguments: [
        ("2026-11-22T04:19:57.123Z", 1_795_321_197_123),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59.999Z", -1),
        ("2000-02-29T12:00:00.5+09:00", 951_793_200_500),
        ("2024-12-31T23:59:59.999999-01:30", 1_735_694_999_999),
    ] as [(String, Int64)])
    func iso8601DatesParseAndFormat(text: String, milliseconds: Int64) {
        #expect(ISO8601Milliseconds.parse(Array(text.utf8)[...]) == milliseconds)
        var formatted: [UInt8] = []
        ISO8601Milliseconds.append(milliseconds, to: &formatted)
        #expect(ISO8601Milliseconds.parse(formatted[...]) == milliseconds)
    }

    @Test(arguments: ["2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22 04:19", "2026-11-22T04:19:57", "2026-11-22T04:19:57.Z", ""])
    func invalidDatesAreRefused(text: String) {
        #expect(ISO8601Milliseconds.parse(Array(text.utf8)[...]) == nil)
    }

    @Test func escapesSurrogatesUnknownFieldsAndOptionalDatesAreRead() throws {
        let objects = try read(#"""
            \#u{FEFF}[
              {"id": 1, "photoUrl": "a\/b", "category": "\u6d0b\u98df", "dishName": "\ud83c\udf63 sushi", "shopName": "tab\there",
               "introduction": "line\nbreak \"quoted\"", "extra": {"nested": [1, 2.5e3, true, null, {"x": "y"}]}, "storedAt": null},
              {"id": 2, "photoUrl": "", "category": "", "dishName": "d", "shopName": "", "introduction": "", "storedAt": 1700000000123}
            ]
            """#)
        #expect(objects.count == 2)
        #expect(objects[0].photoUrl == "a/b")
        #expect(objects[0].category == "洋食")
        #expect(objects[0].dishName == "🍣 sushi")
        #expect(objects[0].shopName == "tab\there")
        #expect(objects[0].introduction == "line\nbreak \"quoted\"")
        #expect(objects[0].storedAt == Date(millisecondsSince1970: 42))
        #expect(objects[1].storedAt == Date(millisecondsSince1970: 1_700_000_000_123))
    }

    @Test(arguments: [
        (#"[{"id":1,"photoUrl":"","category":"","dishName":"\ud83c","shopName":"","introduction":""}]"#, "unpaired surrogate"),
        ("[{\"id\":1,\"photoUrl\":\"\",\"category\":\"\",\"dishName\":\"raw\ttab\",\"shopName\":\"\",\"introduction\":\"\"}]", "control character"),
        (#"[{"id":1.5,"photoUrl":"","category":"","dishName":"d","shopName":"","introduction":""}]"#, "fraction"),
        (#"[{"id":1,"photoUrl":"","category":"","dishName":true,"shopName":"","introduction":""}]"#, "must be a string, found a boolean"),
        (#"[1]"#, "expected a record"),
        (#"[{"id":1,"photoUrl":"","category":"","dishName":"d","shopName":"","introduction":"", "x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]"#, "nested deeper"),
    ])
    func malformedInputIsAClearError(text: String, message: String) throws {
        let error = try #require(throws: FavoritesImportError.self) { _ = try read(text) }
        #expect(error.description.contains(message), "\(error)")
    }

    @Test func invalidUTF8IsRefusedNamingTheField() throws {
        var bytes = Array(#"[{"id":1,"photoUrl":"","category":"","dishName":"d","shopName":"X","introduction":""}]"#.utf8)
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "X")))
        bytes[index] = 0xFF
        let path = directory.path("bad-utf8.json")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: FavoritesImportError.self) { try FavoritesImporter(path: path).validate() }
        #expect(error == .invalidRecord(index: 0, field: "shopName", reason: "is not valid UTF-8"))
    }

    @Test func aHugeStringIsRefusedWithoutReadingItWhole() throws {
        let huge = String(repeating: "a", count: 10 * 1024 * 1024)
        let path = directory.path("huge.json")
        try #"[{"id":1,"dishName":"\#(huge)"}]"#.write(toFile: path, atomically: false, encoding: .utf8)
        let error = try #require(throws: FavoritesImportError.self) { try FavoritesImporter(path: path).validate() }
        #expect(error == .invalidRecord(index: 0, field: "dishName", reason: "is longer than 65536 bytes"))
    }

    @Test func exportThenImportRoundTripsEveryField() throws {
        let source = try ArchiveDatabase.inMemory()
        let objects = (1...1234).map { id in
            StoredArchiveObject(
                id: id, photoUrl: "https://p/\(id)", category: "カテゴリ\(id % 7)", dishName: "料理 \"\(id)\" \\ \u{1}",
                shopName: "店\n\(id)", introduction: String(repeating: "紹介", count: id % 50),
                storedAt: Date(millisecondsSince1970: 1_700_000_000_000 + Int64(id) * 7))
        }
        try source.favorites.create(contentsOf: objects)
        let path = directory.path("export.json")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        #expect(descriptor >= 0)
        let handle = FileDescriptorHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        #expect(try FavoritesExporter.export(source.favorites, to: handle, pageSize: 100) == 1234)
        #expect(close(descriptor) == 0)

        let target = try ArchiveDatabase.inMemory()
        var phases: Set<FavoritesImporter.Progress.Phase> = []
        #expect(try FavoritesImporter(path: path).run(into: target.favorites) { phases.insert($0.phase) } == .init(records: 1234, imported: 1234))
        #expect(phases == [.importing])  // one reading: no ID may repeat
        #expect(try target.favorites.allObjects() == (try source.favorites.allObjects()))
    }
}
