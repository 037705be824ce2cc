@testable import ArchiveStorage
import ArchiveSearch
import Foundation
import SQLite
import TestSupport
import Testing

/// The favorites search (migration 0003's index) against its definition: a full
/// scan with ``FavoritesQuery/matches(_:)``, on generated data.
struct FavoritesSearchTests {
    // MARK: - Generated data

    static let categories = ["和食", "洋食", "中華", "Café", "ÉPICERIE"]
    static let words = [
        "蕎麦", "寿司", "天ぷら", "チーズ", "とろける", "ラーメン", "蕎", "Soba", "SUSHI", "Crème", "brûlée",
        "ÉCLAIR", "Straße", "İstanbul", "ǅemal", "ΣΟΦΙΑ", "Москва", "🍜", "\"quoted\"", "100%", "a_b", "Ｆｕｌｌ",
    ]

    static func generated(count: Int, seed: UInt64) -> [StoredArchiveObject] {
        var random = SeededGenerator(seed: seed)
        func phrase() -> String {
            (0..<Int.random(in: 1...4, using: &random)).map { _ in words.randomElement(using: &random) ?? "" }
                .joined(separator: Bool.random(using: &random) ? " " : "")
        }
        return (1...count).map { id in
            StoredArchiveObject(
                id: id, photoUrl: "https://example.invalid/\(phrase())/\(id).jpg",
                category: categories.randomElement(using: &random) ?? "",
                dishName: phrase(), shopName: phrase(), introduction: phrase(),
                storedAt: Date(millisecondsSince1970: 1_700_000_000_000 + Int64(Int.random(in: 0..<500, using: &random))))
        }
    }

    /// Queries of 1, 2 and 3+ scalars drawn from the data, in other cases, plus some that match nothing.
    static func queries(seed: UInt64) -> [String] {
        var random = SeededGenerator(seed: seed)
        var queries = ["蕎", "寿司", "寿", "ぷら", "チーズ", "soba", "SOBA", "sOb", "crème", "CRÈME", "È", "é", "ss",
                       "STRASSE", "straße", "i̇stanbul", "istanbul", "ǆ", "σοφια", "МОСКВА", "🍜", "\"", "\"q", "%",
                       "_", "ｆｕｌｌ", "Ｆ", "jpg", "/1", "1", "12", "https", "蕎麦寿", "x", "xyz", "麦寿", " 寿司 "]
        for _ in 0..<40 {
            guard let word = words.randomElement(using: &random) else { continue }
            let scalars = Array(word.unicodeScalars)
            let length = Int.random(in: 1...scalars.count, using: &random)
            let start = Int.random(in: 0...(scalars.count - length), using: &random)
            var text = String(String.UnicodeScalarView(scalars[start..<(start + length)]))
            if Bool.random(using: &random) { text = text.uppercased() }
            queries.append(text)
        }
        return queries
    }

    /// Every page of a search, followed cursor by cursor, as IDs.
    static func allPages(_ repository: some StoredArchiveDataRepository, _ query: FavoritesQuery, limit: Int) throws -> [Int] {
        var ids: [Int] = []
        var cursor: StoredArchivePageCursor?
        repeat {
            let result = try repository.search(query, after: cursor, limit: limit)
            ids += result.page.map(\.id)
            cursor = result.page.nextCursor
        } while cursor != nil
        return ids
    }

    /// The definition: every favorite, newest first, that the query matches.
    static func scan(_ objects: [StoredArchiveObject], _ query: FavoritesQuery) -> [Int] {
        objects.filter(query.matches).map(\.id)
    }

    /// Expects every page of each keyword's search to be exactly what a full scan finds.
    static func expectScanResults(_ favorites: some StoredArchiveDataRepository, keywords: [String]) throws {
        let objects = try favorites.allObjects()
        for keyword in keywords {
            let query = FavoritesQuery(keyword: keyword)
            #expect(try allPages(favorites, query, limit: 50) == scan(objects, query), "keyword \(keyword.debugDescription)")
        }
    }

    /// FTS5 compares its index with the table (every row indexed once, with the
    /// texts it holds) and throws SQLITE_CORRUPT when they differ.
    static func checkIndex(of database: ArchiveDatabase) throws {
        try database.queue.write { db in
            try db.execute("INSERT INTO archive_objects_search (archive_objects_search, rank) VALUES ('integrity-check', 1)")
        }
    }

    // MARK: - Oracle

    @Test func theIndexedSearchReturnsExactlyWhatAFullScanReturns() throws {
        let database = try ArchiveDatabase.inMemory()
        let favorites = database.favorites
        try favorites.create(contentsOf: Self.generated(count: 1_500, seed: 14))
        let objects = try favorites.allObjects()
        var checked = 0
        for keyword in Self.queries(seed: 7) {
            for category in ["", "和食", "Café", "none"] {
                let query = FavoritesQuery(keyword: keyword, category: category)
                let expected = Self.scan(objects, query)
                let found = try Self.allPages(favorites, query, limit: 37)
                #expect(found == expected, "keyword \(keyword.debugDescription), category \(category)")
                let first = try favorites.search(query, after: nil, limit: 37)
                if let count = first.matchCount { #expect(count == expected.count, "count for \(keyword.debugDescription)") }
                checked += expected.isEmpty ? 0 : 1
            }
        }
        #expect(checked > 100, "the queries must find something")
    }

    @Test func theIndexFollowsStoresRefreshesAndRemoves() throws {
        let database = try ArchiveDatabase.inMemory()
        let favorites = database.favorites
        let generated = Self.generated(count: 600, seed: 3)
        try favorites.create(contentsOf: generated)
        var random = SeededGenerator(seed: 99)
        for object in generated.shuffled(using: &random).prefix(200) {
            if Bool.random(using: &random) {
                try favorites.delete(id: object.id)
            } else {
                // A refresh with new texts (create is an upsert), and a bulk one.
                let moved = StoredArchiveObject(
                    id: object.id, photoUrl: object.photoUrl, category: object.category,
                    dishName: "改名 \(object.id) Renamed", shopName: object.introduction, introduction: "",
                    storedAt: object.storedAt)
                if object.id % 2 == 0 { try favorites.create(moved) } else { try favorites.create(contentsOf: [moved]) }
            }
        }
        try Self.checkIndex(of: database)
        try Self.expectScanResults(favorites, keywords: Self.queries(seed: 8) + ["改名", "renamed", "改"])
    }

    /// An export lists favorites newest first; importing it must not make FTS5
    /// write a segment per favorite (it does for every ID lower than the one before),
    /// and favorites stored twice in one import, with other texts the second time,
    /// are found by their last texts only.
    @Test func aBulkStoreOutOfIDOrderIsIndexedInOrderAndFindsTheSame() throws {
        let database = try ArchiveDatabase.inMemory()
        let favorites = database.favorites
        try favorites.create(contentsOf: Self.generated(count: 1_000, seed: 5).reversed())
        let segments = try database.queue.read { db in
            try db.fetchOne("SELECT count(DISTINCT segid) FROM archive_objects_search_idx") { try $0.int(at: 0) }
        }
        #expect(segments.map { $0 <= 2 } == true, "\(segments ?? -1) index segments for one import")

        var random = SeededGenerator(seed: 17)
        let more = Self.generated(count: 1_600, seed: 6).filter { $0.id > 1_000 }.shuffled(using: &random)
        let renamed = more.prefix(200).map { object in
            StoredArchiveObject(
                id: object.id, photoUrl: object.photoUrl, category: object.category,
                dishName: "改名 \(object.id) Renamed", shopName: object.introduction, introduction: "",
                storedAt: object.storedAt)
        }
        try favorites.create(contentsOf: more + renamed)
        try Self.checkIndex(of: database)
        #expect(try favorites.count() == 1_600)
        try Self.expectScanResults(favorites, keywords: Self.queries(seed: 9) + ["改名", "renamed", "改"])
    }

    /// Favorites another program wrote are not in the index; a rebuild puts the
    /// index in step with the table again (FTS5's own comparison says so).
    @Test func aRebuildIndexesWhatAnotherProgramWrote() throws {
        let database = try ArchiveDatabase.inMemory()
        let favorites = database.favorites
        try favorites.create(contentsOf: Self.generated(count: 300, seed: 11))
        try database.queue.write { db in
            try db.execute("INSERT INTO archive_objects VALUES (1000, 'u', '和食', '鴨南蛮', '店', '紹介', 1700000000000)")
            try db.execute("UPDATE archive_objects SET dish_name = '月見うどん' WHERE id <= 20")
        }
        #expect(try favorites.search(FavoritesQuery(keyword: "鴨南蛮"), after: nil, limit: 50).page.isEmpty)
        #expect(throws: (any Error).self) { try Self.checkIndex(of: database) }
        #expect(try database.integrityReport().problems == [
            "the favorites search index holds 300 favorites, the table 301 (another program added or removed favorites, which searches miss or still find): run `archive reindex`",
        ])
        #expect(try favorites.rebuildSearchIndex() == 301)
        try Self.checkIndex(of: database)
        #expect(try database.integrityReport().isOK)
        try Self.expectScanResults(favorites, keywords: Self.queries(seed: 12) + ["鴨南蛮", "月見"])
    }

    @Test func aKeywordMostFavoritesContainWalksNewestFirstWithTheSameResults() throws {
        let database = try ArchiveDatabase.inMemory()
        let count = SQLiteStoredArchiveDataRepository.candidateLimit + 300
        let objects = (1...count).map { id in
            StoredArchiveObject(
                id: id, photoUrl: "p", category: id % 7 == 0 ? "洋食" : "和食", dishName: "料理 \(id)",
                shopName: "s", introduction: id % 1000 == 0 ? "限定" : "", storedAt: Date(millisecondsSince1970: Int64(id % 97)))
        }
        try database.favorites.create(contentsOf: objects)
        let stored = try database.favorites.allObjects()
        for (keyword, category) in [("料理", ""), ("料理", "洋食"), ("料", "和食"), ("理 1", ""), ("限定", ""), ("", "洋食")] {
            let query = FavoritesQuery(keyword: keyword, category: category)
            let expected = Self.scan(stored, query)
            var cursor: StoredArchivePageCursor?
            var found: [Int] = []
            for _ in 0..<3 {  // the first pages; a page never holds anything but the next matches
                let result = try database.favorites.search(query, after: cursor, limit: 100)
                found += result.page.map(\.id)
                cursor = result.page.nextCursor
                guard cursor != nil else { break }
            }
            #expect(found == Array(expected.prefix(found.count)), "\(keyword) in \(category)")
            #expect(found.count == min(300, expected.count))
        }
    }

    @Test func aBadLimitIsRefusedAndAnEmptyQueryIsThePlainPage() throws {
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(contentsOf: Self.generated(count: 30, seed: 1))
        #expect(throws: ArchiveStorageError.invalidPageLimit(0)) {
            try database.favorites.search(FavoritesQuery(keyword: "寿司"), after: nil, limit: 0)
        }
        let plain = try database.favorites.page(after: nil, limit: 10)
        let searched = try database.favorites.search(FavoritesQuery(keyword: "  "), after: nil, limit: 10)
        #expect(searched.page == plain)
        #expect(searched.matchCount == 30)
    }

    /// Stored texts never hold NUL (they are refused), but a keyword may: the
    /// index is not asked (FTS5 would cut the query there), the scan finds nothing.
    @Test func aKeywordHoldingNULIsAnsweredByAScan() throws {
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(Fixtures.object(1, dishName: "ab"))
        #expect(SearchGrams.indexTerms(for: SearchKeyword("a\u{0}b")) == nil)
        let result = try database.favorites.search(FavoritesQuery(keyword: "A\u{0}B"), after: nil, limit: 10)
        #expect(result.page.isEmpty)
        #expect(try database.favorites.search(FavoritesQuery(keyword: "A"), after: nil, limit: 10).page.map(\.id) == [1])
    }

    // MARK: - The index against the table

    /// `check` compares the index's own count of favorites with the table's, reading
    /// only: the engine's writes keep them equal, another program's deletes do not.
    @Test func theIntegrityReportComparesTheIndexWithTheTable() throws {
        let database = try ArchiveDatabase.inMemory()
        #expect(try database.integrityReport().isOK)  // an index that never held a row
        try database.favorites.create(contentsOf: Self.generated(count: 200, seed: 13))
        try database.favorites.delete(id: 3)
        try database.favorites.create(Fixtures.object(3, dishName: "改名"))
        #expect(try database.integrityReport().isOK)
        try database.queue.write { db in try db.execute("DELETE FROM archive_objects WHERE id > 150") }
        #expect(try database.integrityReport().problems.first?.contains("holds 200 favorites, the table 150") == true)
        #expect(try database.favorites.rebuildSearchIndex() == 150)
        #expect(try database.integrityReport().isOK)
        for damaged in ["x'80'", "'150'", "NULL"] {
            try database.queue.write { db in try db.execute("UPDATE archive_objects_search_data SET block = \(damaged) WHERE id = 1") }
            #expect(try database.integrityReport().problems == [
                "the favorites search index's totals cannot be read: run `archive reindex`",
            ], "\(damaged)")
        }
        #expect(try database.favorites.rebuildSearchIndex() == 150)
        #expect(try database.integrityReport().isOK)
    }

    /// A program writing through its own connection (the benchmark's peers) reads the
    /// same totals: the favorites the index holds, `nil` without an index or totals.
    @Test func theIndexedFavoritesAreReadFromTheTotals() throws {
        let database = try ArchiveDatabase.inMemory()
        func indexed() throws -> Int? { try database.queue.read { db in try FavoritesSearchIndex.indexedFavorites(in: db) } }
        #expect(try indexed() == 0)
        try database.favorites.create(contentsOf: Self.generated(count: 30, seed: 5))
        #expect(try indexed() == 30)
        try database.queue.write { db in try db.execute("DELETE FROM archive_objects WHERE id > 10") }
        #expect(try indexed() == 30)
        try database.queue.write { db in try db.execute("UPDATE archive_objects_search_data SET block = x'80' WHERE id = 1") }
        #expect(try indexed() == nil)
        try database.queue.write { db in try db.execute("DROP TABLE archive_objects_search") }
        #expect(try indexed() == nil)
    }

    /// FTS5's totals start with a SQLite varint: 7 bits a byte, big-endian, the
    /// ninth byte whole.
    @Test func varintsDecodeAsSQLiteWritesThem() {
        func decoded(_ bytes: [UInt8]) -> [UInt64]? {
            SearchIndexTotals.varint(in: Data(bytes)).map { [$0.0, UInt64($0.1)] }
        }
        #expect(decoded([0x00]) == [0, 1])
        #expect(decoded([0x7F, 0xFF]) == [127, 1])
        #expect(decoded([0x81, 0x00]) == [128, 2])
        #expect(decoded([0xCE, 0x0F, 0xA1]) == [9_999, 2])
        #expect(decoded(Array(repeating: 0xFF, count: 9)) == [UInt64.max, 9])
        #expect(decoded([0x81, 0x80]) == nil)
        #expect(decoded([]) == nil)
    }

    // MARK: - Without the index

    /// A database whose index was dropped (to save space, say) still stores,
    /// removes and finds everything: the engine skips the index and scans.
    @Test func withoutTheIndexWritesSkipItAndSearchesScan() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("a.sqlite3")
        try ArchiveDatabase(path: path).favorites.create(contentsOf: Self.generated(count: 300, seed: 5))
        do {
            let plain = try Database(path: path)
            try plain.register(FavoritesSearchIndex.tokenizer)
            try plain.execute("DROP TABLE archive_objects_search")
        }
        let database = try ArchiveDatabase(path: path)
        try database.favorites.create(Fixtures.object(9_999, dishName: "寿司 new"))
        try database.favorites.delete(id: 7)
        let objects = try database.favorites.allObjects()
        for keyword in ["寿司", "蕎", "SOBA", "new"] {
            let query = FavoritesQuery(keyword: keyword)
            #expect(try Self.allPages(database.favorites, query, limit: 40) == Self.scan(objects, query), "\(keyword)")
        }
        #expect(throws: ArchiveStorageError.noSearchIndex(path: path)) { try database.favorites.rebuildSearchIndex() }
    }

    // MARK: - Folding

    /// The fast path of ``SearchFolding/fold(_:_:)`` skips Unicode's tables for
    /// ``SearchFolding/caselessRange``: no scalar there may change when lowercased.
    @Test func theCaselessRangeHasNoCase() {
        for value in SearchFolding.caselessRange {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(!scalar.properties.changesWhenLowercased, "U+\(String(value, radix: 16))")
        }
    }

    @Test func gramsStartAtEveryFoldedScalar() {
        var grams: [[UInt8]] = []
        var text = "Ab寿"
        text.withUTF8 { bytes in
            SearchGrams.forEachGram(inUTF8: UnsafeRawBufferPointer(bytes)) { grams.append(Array($0)); return true }
        }
        #expect(grams == [Array("ab寿".utf8), Array("b寿".utf8) + [0xFF], Array("寿".utf8) + [0xFF, 0xFF]])
        #expect(SearchGrams.indexTerms(for: SearchKeyword("寿司")) == ["\"寿司\" *"])
        #expect(SearchGrams.indexTerms(for: SearchKeyword("A\"bcb\"bc")) == ["\"a\"\"b\"", "\"\"\"bc\"", "\"bcb\"", "\"cb\"\"\"", "\"b\"\"b\""])
        #expect(SearchGrams.indexTerms(for: SearchKeyword("")) == nil)
    }

    /// A keyword of a megabyte (a pasted file, say) asks the index for a bounded
    /// number of windows, and still finds exactly what the scan finds.
    @Test func aHugeKeywordAsksForABoundedQuery() throws {
        let huge = String(repeating: "寿司とチーズ", count: 200_000)
        let terms = try #require(SearchGrams.indexTerms(for: SearchKeyword(huge)))
        #expect(terms.count <= SearchGrams.maximumWindows + 1)
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(Fixtures.object(1, dishName: String(repeating: "寿司とチーズ", count: 3)))
        #expect(try database.favorites.search(FavoritesQuery(keyword: "司とチーズ寿司"), after: nil, limit: 5).page.map(\.id) == [1])
        #expect(try database.favorites.search(FavoritesQuery(keyword: huge), after: nil, limit: 5).page.isEmpty)
    }
}
