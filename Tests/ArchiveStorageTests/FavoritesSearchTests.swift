@testable import ArchiveStorage
import ArchiveSearch
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// The favorites search (migration 0004's index) against its definition: a full
/// scan with ``FavoritesQuery/matches(_:)``, on generated data.
@Suite(.timeLimit(.minutes(5)))
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

    /// Every block and list of the index decodes and every stored favorite is covered.
    static func checkIndex(of database: ArchiveDatabase) throws {
        let problems = try database.queue.read { try FavoritesSearchIndex.problems(in: $0) }
        #expect(problems == [])
    }

    /// The index's runs: (level, number of favorites), oldest first.
    static func runs(of database: ArchiveDatabase) throws -> [(level: Int, members: Int)] {
        try database.queue.read { db in
            try db.fetchAll("SELECT level, members FROM archive_search_runs ORDER BY run") { row in
                (try row.int(at: 0), try SearchIDList.ids(in: try row.column([UInt8].self, at: 1)).count)
            }
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

    /// An export lists favorites newest first: an import out of ID order is one
    /// run, and favorites stored twice in one import, with other texts the second
    /// time, are found by their last texts.
    @Test func aBulkStoreOutOfIDOrderIsOneRunAndFindsTheSame() throws {
        let database = try ArchiveDatabase.inMemory()
        let favorites = database.favorites
        try favorites.create(contentsOf: Self.generated(count: 1_000, seed: 5).reversed())
        #expect(try Self.runs(of: database).map(\.members) == [1_000])

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
    /// index in step with the table again.
    @Test func aRebuildIndexesWhatAnotherProgramWrote() throws {
        let database = try ArchiveDatabase.inMemory()
        let favorites = database.favorites
        try favorites.create(contentsOf: Self.generated(count: 300, seed: 11))
        try database.queue.write { db in
            try db.execute("INSERT INTO archive_objects (id, photo_url, category, dish_name, shop_name, introduction, stored_at) VALUES (1000, 'u', '和食', '鴨南蛮', '店', '紹介', 1700000000000)")
            try db.execute("UPDATE archive_objects SET dish_name = '月見うどん' WHERE id <= 20")
        }
        #expect(try favorites.search(FavoritesQuery(keyword: "鴨南蛮"), after: nil, limit: 50).page.isEmpty)
        #expect(try database.integrityReport().problems == [
            "the favorites search index misses 1 stored favorite (1000; another program added them, and searches miss them): run `archive reindex`",
            "1 favorite(s) have no place in the change feed (seq 0: another program inserted them), so no sync sends them: run `archive reindex`, which stamps them",
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

    /// Stored texts never hold NUL (they are refused), but a keyword may: its
    /// lookups find nothing, as the scan does.
    @Test func aKeywordHoldingNULIsAnsweredByAScan() throws {
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(Fixtures.object(1, dishName: "ab"))
        let result = try database.favorites.search(FavoritesQuery(keyword: "A\u{0}B"), after: nil, limit: 10)
        #expect(result.page.isEmpty)
        #expect(try database.favorites.search(FavoritesQuery(keyword: "A"), after: nil, limit: 10).page.map(\.id) == [1])
    }

    // MARK: - The index against the table

    /// `check` decodes every block and list of the index and finds the stored
    /// favorites it does not cover, reading only; favorites another program
    /// deleted are no problem (searches check each candidate).
    @Test func theIntegrityReportChecksTheIndexAgainstTheTable() throws {
        let database = try ArchiveDatabase.inMemory()
        #expect(try database.integrityReport().isOK)  // an index that never held a favorite
        try database.favorites.create(contentsOf: Self.generated(count: 200, seed: 13))
        try database.favorites.delete(id: 3)
        try database.favorites.create(Fixtures.object(3, dishName: "改名"))
        #expect(try database.integrityReport().isOK)
        try database.queue.write { db in try db.execute("DELETE FROM archive_objects WHERE id > 150") }
        #expect(try database.integrityReport().isOK)
        try database.queue.write { db in
            try db.execute("INSERT INTO archive_objects (id, photo_url, category, dish_name, shop_name, introduction, stored_at) SELECT id + 1000, photo_url, category, dish_name, shop_name, introduction, stored_at FROM archive_objects WHERE id <= 5")
        }
        #expect(try database.integrityReport().problems == [
            "the favorites search index misses 5 stored favorites (1001, 1002, 1003, …; another program added them, and searches miss them): run `archive reindex`",
            "5 favorite(s) have no place in the change feed (seq 0: another program inserted them), so no sync sends them: run `archive reindex`, which stamps them",
        ])
        #expect(try database.favorites.rebuildSearchIndex() == 155)
        #expect(try database.integrityReport().isOK)
        let damages: [(sql: String, problem: String)] = [
            ("UPDATE archive_search_blocks SET block = x'0102' WHERE first_key = (SELECT min(first_key) FROM archive_search_blocks)", "ends inside an entry"),
            ("UPDATE archive_search_blocks SET run_key = run_key + 1 WHERE run_key = (SELECT min(run_key) FROM archive_search_blocks)", "does not start with the key"),
            ("UPDATE archive_search_blocks SET block = substr(block, 1, length(block) - 1) WHERE first_key = (SELECT max(first_key) FROM archive_search_blocks)", "ends inside an entry"),
            ("UPDATE archive_search_blocks SET block = 'text' WHERE first_key = (SELECT min(first_key) FROM archive_search_blocks)", "not a blob"),
            ("UPDATE archive_search_runs SET members = x'80'", "lists its favorites damaged (byte 0)"),
            ("UPDATE archive_search_runs SET members = 7", "has no list of favorites"),
            ("UPDATE archive_search_blocks SET run_key = run_key + (99 << 32)", "of no run"),
            ("UPDATE archive_search_runs SET run = -1", "outside 1 to 2147483647"),
        ]
        for damage in damages {
            try database.queue.write { db in try db.execute(damage.sql) }
            let problems = try database.integrityReport().problems
            #expect(!problems.isEmpty && problems.allSatisfy { $0.contains("archive reindex") }, "\(damage.sql)")
            #expect(problems.contains { $0.contains(damage.problem) }, "\(damage.sql): \(problems)")
            // Blocks that do not decode never change an answer: the search walks
            // instead. (Blocks taken away from their run, the last case, are missed
            // until `reindex`; `check` says so.)
            if damage.sql.contains("SET block") || damage.sql.contains("run_key + 1 ") {
                try Self.expectScanResults(database.favorites, keywords: ["寿司", "蕎", "Soba", "チーズ", "nothing"])
            }
            #expect(try database.favorites.rebuildSearchIndex() == 155)
            #expect(try database.integrityReport().isOK)
        }
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
            for table in FavoritesSearchIndex.tables { try plain.execute("DROP TABLE \(table)") }
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
        #expect(SearchGramKey.lookups(for: SearchKeyword("")) == nil)
    }

    /// A keyword of a megabyte (a pasted file, say) asks the index for a bounded
    /// number of windows, and still finds exactly what the scan finds.
    @Test func aHugeKeywordAsksForABoundedQuery() throws {
        let huge = String(repeating: "寿司とチーズ", count: 200_000)
        let lookups = try #require(SearchGramKey.lookups(for: SearchKeyword(huge)))
        #expect(lookups.count <= SearchGrams.maximumWindows + 1)
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(Fixtures.object(1, dishName: String(repeating: "寿司とチーズ", count: 3)))
        #expect(try database.favorites.search(FavoritesQuery(keyword: "司とチーズ寿司"), after: nil, limit: 5).page.map(\.id) == [1])
        #expect(try database.favorites.search(FavoritesQuery(keyword: huge), after: nil, limit: 5).page.isEmpty)
    }
}
