import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

@Suite(.timeLimit(.minutes(5)))
struct StoredArchiveDataRepositoryTests {
    let favorites: SQLiteStoredArchiveDataRepository

    init() throws {
        favorites = try ArchiveDatabase.inMemory().favorites
    }

    // MARK: - Create, upsert, delete

    @Test func createThenReadBack() throws {
        let object = Fixtures.object(17)
        try favorites.create(object)
        #expect(try favorites.object(id: 17) == object)
        #expect(try favorites.contains(id: 17))
        #expect(try !favorites.contains(id: 18))
        #expect(try favorites.count() == 1)
        #expect(try favorites.allObjects() == [object])
    }

    @Test func reCreatingAnIDUpdatesItsFieldsKeepsItsPlaceAndDoesNotDuplicate() throws {
        let original = Fixtures.object(17)
        try favorites.create(original)
        var renamed = Fixtures.object(17, storedAt: Fixtures.epoch.addingTimeInterval(10_000), dishName: "新しい名前")
        renamed.shopName = "新しいお店"
        try favorites.create(renamed)
        let stored = try #require(try favorites.object(id: 17))
        #expect(try favorites.count() == 1)
        #expect(stored.dishName == "新しい名前")
        #expect(stored.shopName == "新しいお店")
        #expect(stored.storedAt == original.storedAt)
    }

    @Test func deletingReportsWhetherTheObjectWasStored() throws {
        try favorites.create(Fixtures.object(33))
        #expect(try favorites.delete(id: 33))
        #expect(try !favorites.delete(id: 33))
        #expect(try !favorites.delete(id: 404))
        #expect(try favorites.count() == 0)
    }

    // MARK: - Validation

    @Test(arguments: [
        (Fixtures.object(0), "id"),
        (Fixtures.object(-5), "id"),
        (Fixtures.object(1, dishName: ""), "dishName"),
        (Fixtures.object(1, dishName: "   "), "dishName"),
        (Fixtures.object(1, dishName: "a\u{0}b"), "dishName"),
        (Fixtures.object(1, dishName: String(repeating: "寿", count: 200)), "dishName"),
    ])
    func invalidObjectsAreRefusedBeforeTouchingTheDatabase(object: StoredArchiveObject, field: String) throws {
        let error = try #require(throws: ArchiveStorageError.self) { try favorites.create(object) }
        guard case .invalidObject(_, _, let reported, _) = error else {
            Issue.record("expected invalidObject, got \(error)")
            return
        }
        #expect(reported == field)
        #expect(try favorites.count() == 0)
    }

    @Test func overLongIntroductionNamesTheLimit() throws {
        var object = Fixtures.object(3)
        object.introduction = String(repeating: "x", count: StoredArchiveObject.Limits.introduction + 1)
        let error = try #require(throws: ArchiveStorageError.self) { try favorites.create(object) }
        #expect(error.description.contains("introduction"))
        #expect(error.description.contains("10000"))
    }

    // MARK: - Bulk

    @Test func bulkInsertStoresEverythingInOneGo() throws {
        var reported: [Int] = []
        let count = try favorites.create(contentsOf: (1...25_000).lazy.map { Fixtures.object($0) }) { reported.append($0) }
        #expect(count == 25_000)
        #expect(try favorites.count() == 25_000)
        #expect(reported == [10_000, 20_000, 25_000])
    }

    @Test func bulkInsertIsAllOrNothing() throws {
        try favorites.create(Fixtures.object(1, dishName: "前からある"))
        var objects = (1...100).map { Fixtures.object($0) }
        objects[57].dishName = ""
        let error = try #require(throws: ArchiveStorageError.self) { try favorites.create(contentsOf: objects) }
        #expect(error == .invalidObject(index: 57, id: 58, field: "dishName", reason: "must not be empty"))
        #expect(error.description.contains("record 57"))
        #expect(try favorites.count() == 1)
        #expect(try favorites.object(id: 1)?.dishName == "前からある")
    }

    @Test("a dish name of whitespace alone is refused, the ideographic space included; one starting with kana, kanji or a CJK symbol is not")
    func blankDishNames() throws {
        for blank in ["", " ", "\t\n", "\u{3000}", " \u{3000}\u{3000}", "\u{3000}\u{00A0}\u{2003}", "\u{2003}\u{2028}"] {
            let error = try #require(throws: ArchiveStorageError.self) { try Fixtures.object(1, dishName: blank).validate() }
            #expect(error == .invalidObject(index: nil, id: 1, field: "dishName", reason: "must not be empty"), "\(Array(blank.unicodeScalars))")
        }
        for name in ["料理", "\u{3000}料理", "ぁ", "〒", "\u{303F}", "\u{3040}", "\u{4000}", "\u{9FFF}", "\u{A000}", "a", "\u{00A0}x"] {
            #expect(throws: Never.self, "\(Array(name.unicodeScalars))") { try Fixtures.object(1, dishName: name).validate() }
        }
    }

    // MARK: - Membership

    @Test func storedIDsAmongAnswersWithOneHundredThousandStored() throws {
        try favorites.create(contentsOf: stride(from: 2, through: 200_000, by: 2).lazy.map { Fixtures.object($0) })
        #expect(try favorites.count() == 100_000)

        let asked = Array(199_950...200_049)
        #expect(try favorites.storedIDs(among: asked) == Set(asked.filter { $0 % 2 == 0 && $0 <= 200_000 }))
        #expect(try favorites.storedIDs(among: []) == [])
        #expect(try favorites.storedIDs(among: [7]) == [])
        #expect(try favorites.storedIDs(among: [8]) == [8])
        #expect(try favorites.storedIDs(among: [8, 8, 9, 8]) == [8])
        #expect(try favorites.storedIDs(among: [-1, 0, Int.max, Int.min]) == [])

        // More IDs than one query binds: chunked, every size of the last chunk.
        for count in [511, 512, 513, 1_025, 3_000] {
            let ids = Array(1...count)
            #expect(try favorites.storedIDs(among: ids) == Set(ids.filter { $0 % 2 == 0 }), "count \(count)")
        }
    }

    // MARK: - Pages

    @Test func pagesAreNewestFirstAndCoverEveryObjectOnce() throws {
        // Ties on storedAt are broken by id, descending.
        let sameTime = Fixtures.epoch
        try favorites.create(contentsOf: (1...95).map { Fixtures.object($0, storedAt: $0 % 5 == 0 ? sameTime : nil) })
        var seen: [StoredArchiveObject] = []
        var cursor: StoredArchivePageCursor?
        repeat {
            let page = try favorites.page(after: cursor, limit: 10)
            seen += page.objects
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen.count == 95)
        #expect(Set(seen.map(\.id)).count == 95)
        #expect(seen == (try favorites.allObjects()))
        let order = seen.map { ($0.storedAt, $0.id) }
        #expect(zip(order, order.dropFirst()).allSatisfy { $0.0 > $1.0 || ($0.0 == $1.0 && $0.1 > $1.1) })
    }

    @Test func pagesStayStableWhenObjectsAreAddedBetweenThem() throws {
        try favorites.create(contentsOf: (1...30).map { Fixtures.object($0) })
        let first = try favorites.page(after: nil, limit: 10)
        #expect(first.objects.map(\.id) == Array((21...30).reversed()))

        // Newer favorites arrive while the user reads page one.
        try favorites.create(contentsOf: (31...40).map { Fixtures.object($0) })
        try favorites.delete(id: 25)  // and one already shown goes away

        let second = try favorites.page(after: first.nextCursor, limit: 10)
        #expect(second.objects.map(\.id) == Array((11...20).reversed()))
        let third = try favorites.page(after: second.nextCursor, limit: 10)
        #expect(third.objects.map(\.id) == Array((1...10).reversed()))
        // The last page is exactly full: it has no cursor to an empty page.
        #expect(third.nextCursor == nil)
    }

    @Test func aPageRowReadsWhatWasStoredFieldByField() throws {
        var odd = Fixtures.object(7, dishName: "チーズ \"quoted\" \u{1B}[31m")
        odd.photoUrl = ""
        odd.introduction = String(repeating: "長い紹介。", count: 600)
        let objects = [Fixtures.object(1), odd, Fixtures.object(9)]
        try favorites.create(contentsOf: objects)
        let page = try favorites.page(after: nil, limit: 10)
        #expect(page.count == 3)
        for row in page {
            let stored = try #require(objects.first { $0.id == row.id })
            #expect(row.object == stored)
            #expect(row.photoUrl == stored.photoUrl && row.category == stored.category)
            #expect(row.dishName == stored.dishName && row.shopName == stored.shopName)
            #expect(row.introduction == stored.introduction)
            #expect(row.storedAt == stored.storedAt)
            #expect(row.withUTF8(.dishName) { Array($0) } == Array(stored.dishName.utf8))
        }
        // The page read from SQLite equals one built from the same objects, row by row and whole.
        let built = StoredArchivePage(objects: page.objects, nextCursor: nil)
        #expect(built == page)
        #expect(Array(built) == Array(page))
    }

    @Test func invalidUTF8WrittenByAnotherProgramIsRepairedInRows() throws {
        try favorites.create(Fixtures.object(5))
        try favorites.queue.write { db in
            try db.execute("UPDATE archive_objects SET shop_name = CAST(X'E382FF41' AS TEXT) WHERE id = 5")
        }
        let row = try #require(try favorites.page(after: nil, limit: 1).first)
        #expect(row.shopName == "\u{FFFD}\u{FFFD}A")
        #expect(row.object.shopName == (try favorites.object(id: 5))?.shopName)
    }

    /// The table is not STRICT: another program can store a number in a text column.
    /// It reads as its text everywhere (page, object, search, export's rows), and the
    /// favorite can still be removed.
    @Test func aNumberWrittenIntoATextColumnByAnotherProgramReadsAsItsText() throws {
        try favorites.create(contentsOf: [Fixtures.object(5), Fixtures.object(6)])
        try favorites.queue.write { db in
            try db.execute("UPDATE archive_objects SET shop_name = 12345, category = 7.5 WHERE id = 5")
        }
        let row = try #require(try favorites.page(after: nil, limit: 10).first { $0.id == 5 })
        #expect(row.shopName == "12345" && row.category == "7.5")
        #expect(try favorites.object(id: 5)?.shopName == "12345")
        #expect(try favorites.search(FavoritesQuery(keyword: "", category: "7.5"), after: nil, limit: 10).page.map(\.id) == [5])
        #expect(try favorites.delete(id: 5))
        #expect(try favorites.page(after: nil, limit: 10).map(\.id) == [6])
    }

    @Test func aShortPageHasNoNextCursor() throws {
        try favorites.create(contentsOf: (1...3).map { Fixtures.object($0) })
        let page = try favorites.page(after: nil, limit: 10)
        #expect(page.objects.count == 3)
        #expect(page.nextCursor == nil)
    }

    @Test func cursorsRoundTripThroughTextAndBadOnesAreRefused() throws {
        let cursor = StoredArchivePageCursor(storedAtMilliseconds: 1_700_000_000_123, id: 42)
        #expect(cursor.description == "1700000000123:42")
        #expect(try StoredArchivePageCursor.parse("1700000000123:42") == cursor)
        for bad in ["", "12", "a:b", "1:2:3", "1:"] {
            #expect(throws: ArchiveStorageError.invalidCursor(bad)) { try StoredArchivePageCursor.parse(bad) }
        }
        #expect(throws: ArchiveStorageError.invalidPageLimit(0)) { try favorites.page(after: nil, limit: 0) }
        #expect(throws: ArchiveStorageError.invalidPageLimit(10_001)) { try favorites.page(after: nil, limit: 10_001) }
    }

    // MARK: - Files

    @Test func favoritesPersistAcrossReopeningAFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("favorites.sqlite3")
        try ArchiveDatabase(path: path).favorites.create(Fixtures.object(17))
        let reopened = try ArchiveDatabase(path: path)
        #expect(try reopened.favorites.object(id: 17) == Fixtures.object(17))
    }
}
