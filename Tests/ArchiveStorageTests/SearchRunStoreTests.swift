@testable import ArchiveStorage
import ArchiveSearch
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// How the favorites search index's runs are written, merged and read in the
/// database (migrations 0004, 0005): single stores wait, then become a run; runs of a
/// level merge; a search intersects the rarest lookups.
@Suite(.timeLimit(.minutes(5)))
struct SearchRunStoreTests {
    static func pending(of database: ArchiveDatabase) throws -> [Int] {
        try database.queue.read { try SearchRunStore.pendingIDs(in: $0) }
    }

    @Test func levelsGrowByTheFanIn() {
        #expect(SearchRunStore.level(members: 1) == 0)
        #expect(SearchRunStore.level(members: 511) == 0)
        #expect(SearchRunStore.level(members: 512) == 1)
        #expect(SearchRunStore.level(members: 4_095) == 1)
        #expect(SearchRunStore.level(members: SearchRunStore.bulkRunSize) == 2)
        #expect(SearchRunStore.level(members: 8 * SearchRunStore.bulkRunSize) == 3)
        #expect(SearchRunStore.level(members: Int.max) == 17)  // no overflow
    }

    /// A favorite stored alone waits (and is found) until enough wait to make a run.
    @Test func singleStoresWaitThenBecomeARun() throws {
        let database = try ArchiveDatabase.inMemory()
        let limit = SearchRunStore.pendingLimit
        for id in 1..<limit { try database.favorites.create(Fixtures.object(id, dishName: "蕎麦 \(id)")) }
        #expect(try Self.pending(of: database) == Array(1..<limit))
        #expect(try FavoritesSearchTests.runs(of: database).isEmpty)
        try FavoritesSearchTests.checkIndex(of: database)  // the waiting favorites are covered
        try database.favorites.delete(id: 5)
        #expect(try Self.pending(of: database).count == limit - 2)
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["蕎麦", "蕎麦 1", "お店 6", "x"])
        try database.favorites.create(Fixtures.object(limit, dishName: "蕎麦 \(limit)"))
        try database.favorites.create(Fixtures.object(limit + 1, dishName: "蕎麦 \(limit + 1)"))
        // 62 waited (favorite 5 was removed): the 64th to wait makes the run.
        #expect(try Self.pending(of: database) == [])
        #expect(try FavoritesSearchTests.runs(of: database).map(\.members) == [limit])
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["蕎麦", "蕎麦 1", "お店 6", "x"])
        try FavoritesSearchTests.checkIndex(of: database)
    }

    /// A bulk store of a few favorites (an import of a short file, the TUI's
    /// batch) makes no run of its own: they wait with the single stores.
    @Test func aSmallBulkStoreWaitsLikeSingleStores() throws {
        let database = try ArchiveDatabase.inMemory()
        let limit = SearchRunStore.pendingLimit
        try database.favorites.create(contentsOf: (1...10).map { Fixtures.object($0) })
        #expect(try Self.pending(of: database) == Array(1...10))
        #expect(try FavoritesSearchTests.runs(of: database).isEmpty)
        try database.favorites.create(contentsOf: (11...limit).map { Fixtures.object($0) })
        #expect(try Self.pending(of: database) == [])
        #expect(try FavoritesSearchTests.runs(of: database).map(\.members) == [limit])
        try database.favorites.create(contentsOf: (1...(limit + 1)).map { Fixtures.object($0 + 1_000) })
        #expect(try FavoritesSearchTests.runs(of: database).map(\.members) == [limit, limit + 1])
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["料理 1", "料理 1001", "お店 64", "チーズ"])
        try FavoritesSearchTests.checkIndex(of: database)
    }

    /// The eighth run of a level merges the eight into one of the next level,
    /// leaving out the favorites removed since they were written.
    @Test func aMergeLeavesOutRemovedFavorites() throws {
        let database = try ArchiveDatabase.inMemory()
        let limit = SearchRunStore.pendingLimit
        let all = limit * SearchRunStore.fanIn
        for id in 1...(all - limit) { try database.favorites.create(Fixtures.object(id)) }
        #expect(try FavoritesSearchTests.runs(of: database).map(\.level) == Array(repeating: 0, count: SearchRunStore.fanIn - 1))
        for id in [10, 20, 300] { try database.favorites.delete(id: id) }
        for id in (all - limit + 1)...all { try database.favorites.create(Fixtures.object(id)) }
        let runs = try FavoritesSearchTests.runs(of: database)
        #expect(runs.count == 1)  // 509 favorites: still level 0, merged again with the next seven
        let members = try database.queue.read { db in
            try db.fetchOne("SELECT members FROM archive_search_runs") { try SearchIDList.ids(in: try $0.column([UInt8].self, at: 0)) }
        }
        #expect(members == Array(1...all).filter { ![10, 20, 300].contains($0) })
        let blocks = try database.queue.read { db in
            try db.fetchAll("SELECT run, first_key, block FROM archive_search_blocks") { row in
                (run: try row.int(at: 0), block: SearchRunBlock(
                    firstKey: SearchGramKey(rawValue: UInt32(try row.int(at: 1))), bytes: try row.column([UInt8].self, at: 2)))
            }
        }
        #expect(Set(blocks.map(\.run)).count == 1)
        // The lists name exactly the members: the removed favorites are gone from them too.
        var listed = Set<Int>()
        for (_, block) in blocks {
            try block.forEachEntry { (_, list) throws(SearchRunError) in
                try SearchIDList.forEach(in: list) { listed.insert($0) }
                return true
            }
        }
        #expect(listed == Set(members ?? []))
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["料理 10", "料理 300", "料理 301", "お店 2", "チーズ"])
    }

    /// Thousands of single stores and removes leave fewer than ``SearchRunStore/fanIn``
    /// runs per level, an index `check` finds sound, and searches equal to a scan.
    @Test func manySingleStoresLeaveAFewRunsPerLevel() throws {
        let database = try ArchiveDatabase.inMemory()
        let favorites = database.favorites
        let generated = FavoritesSearchTests.generated(count: 2_500, seed: 21)
        var random = SeededGenerator(seed: 4)
        for object in generated {
            try favorites.create(object)
            if Int.random(in: 0..<10, using: &random) == 0 { try favorites.delete(id: Int.random(in: 1...object.id, using: &random)) }
        }
        let runs = try FavoritesSearchTests.runs(of: database)
        for level in Set(runs.map(\.level)) {
            #expect(runs.filter { $0.level == level }.count < SearchRunStore.fanIn, "level \(level): \(runs)")
        }
        #expect(runs.contains { $0.level >= 1 }, "\(runs)")
        try FavoritesSearchTests.checkIndex(of: database)
        try FavoritesSearchTests.expectScanResults(
            favorites, keywords: ["寿司", "蕎", "ぷら", "チーズ", "soba", "STRASSE", "🍜", "ｆｕｌｌ", "/1", "12", "蕎麦寿", "xyz"])
    }

    /// A keyword whose windows include one that every favorite holds (`番号 `)
    /// intersects the rare ones: a few candidates, not every favorite.
    /// A bulk store of several runs: each full builder is built on a thread of its
    /// own while the store goes on, and every run is written, in the order filled.
    @Test(.bulkRuns(of: 1024)) func aLargeBulkStoreWritesEveryRunItBuiltInTheBackground() throws {
        let database = try ArchiveDatabase.inMemory()
        let size = SearchRunStore.bulkRunSize
        try database.favorites.create(contentsOf: FavoritesSearchTests.generated(count: 2 * size + 808, seed: 12))
        #expect(try FavoritesSearchTests.runs(of: database).map(\.members) == [size, size, 808])
        #expect(try Self.pending(of: database).isEmpty)
        #expect(try database.integrityReport().isOK)
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["寿司", "蕎", "ぷら", "soba", "12", "xyz"])
    }

    /// A bulk store past the in-memory fan-in: its first runs are merged in memory,
    /// on the builder's thread, and written once, as one larger run.
    @Test(.bulkRuns(of: 1024)) func aBulkStorePastTheFanInWritesTheMergedRun() throws {
        let database = try ArchiveDatabase.inMemory()
        let size = SearchRunStore.bulkRunSize
        let objects = FavoritesSearchTests.generated(count: SearchRunStore.bulkMergeFanIn * size + 300, seed: 14)
        try database.favorites.create(contentsOf: objects)
        let runs = try FavoritesSearchTests.runs(of: database)
        #expect(runs.map(\.members) == [SearchRunStore.bulkMergeFanIn * size, 300])
        #expect(runs.map(\.level) == [SearchRunStore.level(members: SearchRunStore.bulkMergeFanIn * size), SearchRunStore.level(members: 300)])
        // Numbered 1 and 2: had the runs been written before they merged, the
        // merged run would be numbered after them.
        let numbers = try database.queue.read { db in try db.fetchAll(SearchRunStore.runNumbersSQL) { try $0.int64(at: 0) } }
        #expect(numbers == [1, 2])
        #expect(try database.integrityReport().isOK)
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["寿司", "蕎", "12"])
    }

    /// A rebuild (`archive reindex`, the open after an upgrade) builds its runs as
    /// a bulk store does: on the builder's thread, merged in memory. A text another
    /// program stored as a number is indexed as its text.
    @Test(.bulkRuns(of: 1024)) func aRebuildBuildsItsRunsAsABulkStoreDoes() throws {
        let database = try ArchiveDatabase.inMemory()
        let size = SearchRunStore.bulkRunSize
        let objects = FavoritesSearchTests.generated(count: SearchRunStore.bulkMergeFanIn * size + 300, seed: 15)
        try database.favorites.create(contentsOf: objects)
        try database.queue.write { db in try db.execute("UPDATE archive_objects SET shop_name = 987654 WHERE id = ?", objects[5].id) }
        #expect(try database.favorites.rebuildSearchIndex() == objects.count)
        let runs = try FavoritesSearchTests.runs(of: database)
        #expect(runs.map(\.members) == [SearchRunStore.bulkMergeFanIn * size, 300])
        let numbers = try database.queue.read { db in try db.fetchAll(SearchRunStore.runNumbersSQL) { try $0.int64(at: 0) } }
        #expect(numbers == [1, 2])
        #expect(try database.queue.read { db in try SearchRunStore.pendingCount(in: db) } == 0)
        #expect(try database.integrityReport().isOK)
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["寿司", "蕎", "12", "987654"])
    }

    /// Fewer favorites than wait for a run alone still become a run when the
    /// waiting ones are indexed: none is left waiting, none is lost.
    @Test func aRebuildOfAFewFavoritesWritesTheirRun() throws {
        let database = try ArchiveDatabase.inMemory()
        let objects = FavoritesSearchTests.generated(count: 10, seed: 16)
        try database.favorites.create(contentsOf: objects)
        #expect(try FavoritesSearchTests.runs(of: database).isEmpty)
        #expect(try database.favorites.rebuildSearchIndex() == 10)
        #expect(try FavoritesSearchTests.runs(of: database).map(\.members) == [10])
        #expect(try database.queue.read { db in try SearchRunStore.pendingCount(in: db) } == 0)
        #expect(try database.integrityReport().isOK)
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["寿司", "蕎", "1"])
    }

    /// A bulk store refused after runs were handed to the background thread (one
    /// still building): nothing is stored, no run is left behind, and the next
    /// store indexes as if the first had never been.
    @Test(.bulkRuns(of: 1024)) func aBulkStoreRefusedMidwayLeavesNoRun() throws {
        let database = try ArchiveDatabase.inMemory()
        var objects = FavoritesSearchTests.generated(count: 3 * SearchRunStore.bulkRunSize, seed: 13)
        objects[2 * SearchRunStore.bulkRunSize + 10].dishName = ""
        #expect(throws: ArchiveStorageError.self) { try database.favorites.create(contentsOf: objects) }
        #expect(try database.favorites.count() == 0)
        #expect(try FavoritesSearchTests.runs(of: database).isEmpty && Self.blockCount(of: database) == 0)
        objects[2 * SearchRunStore.bulkRunSize + 10].dishName = "寿司"
        try database.favorites.create(contentsOf: objects)
        #expect(try FavoritesSearchTests.runs(of: database).map(\.members).reduce(0, +) == objects.count)
        #expect(try database.integrityReport().isOK)
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["寿司", "蕎", "soba"])
    }

    @Test func theRarestLookupsNarrowTheCandidates() throws {
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(contentsOf: (1...2_000).map { Fixtures.object($0, dishName: "番号 \($0)") })
        let lookups = try #require(SearchGramKey.lookups(for: SearchKeyword("番号 1234")))
        let candidates = try database.queue.read { db in
            try SearchRunStore.candidates(for: lookups, limit: SQLiteStoredArchiveDataRepository.candidateLimit, in: db)
        }
        let found = try #require(candidates)
        #expect(found.contains(1234))
        #expect(found.count < 20, "\(found.count) candidates")
        #expect(try database.favorites.search(FavoritesQuery(keyword: "番号 1234"), after: nil, limit: 50).page.map(\.id) == [1234])
        // More candidates than the limit: nil, and the search walks.
        let everything = try database.queue.read { db in
            try SearchRunStore.candidates(for: try #require(SearchGramKey.lookups(for: SearchKeyword("番号"))), limit: 1_999, in: db)
        }
        #expect(everything == nil)
        // Every block left unread while the lookups are ranked (the largest lists' way
        // at a million): the intersected lookups are read whole, and the candidates
        // are the same.
        for keyword in ["番号 1234", "番号 12", "号 7", "番号", "1999"] {
            let keys = try #require(SearchGramKey.lookups(for: SearchKeyword(keyword)))
            let (read, unread) = try database.queue.read { db in
                (try SearchRunStore.candidates(for: keys, limit: 2_000, in: db),
                 try SearchRunStore.candidates(for: keys, limit: 2_000, unreadOver: 0, in: db))
            }
            let scan = try database.favorites.allObjects().filter { $0.dishName.contains(keyword) }.map(\.id)
            #expect(Set(scan).isSubset(of: unread ?? []), "\(keyword)")
            #expect(read == unread, "\(keyword)")
        }
    }

    /// A database at schema version 3 (FTS5) or 4 (runs whose blocks are filed by
    /// `(run, first_key)`) holding favorites, opened by this build: migrated, its
    /// favorites built into runs at once, and searched.
    @Test(arguments: [3, 4], [40, 1_500])
    func anOlderDatabaseIsMigratedAndSearchableAtOnce(version: Int, count: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v\(version).sqlite3")
        let objects = FavoritesSearchTests.generated(count: count, seed: 31)
        do {
            let old = try Database(path: path)
            try old.register(FavoritesSearchIndex.tokenizer)
            try Migrator(migrations: Array(try ArchiveMigrations.all().prefix(version))).migrate(old)
            try old.transaction {
                for object in objects {
                    try old.execute(
                        "INSERT INTO archive_objects VALUES (?, ?, ?, ?, ?, ?, ?)", object.id, object.photoUrl, object.category,
                        object.dishName, object.shopName, object.introduction, object.storedAt.millisecondsSince1970)
                }
                if version == 3 {
                    try old.execute("INSERT INTO archive_objects_search (archive_objects_search) VALUES ('rebuild')")
                } else {
                    // Version 4's layout, as the build that shipped it wrote a run.
                    var builder = SearchRunBuilder()
                    for object in objects {
                        builder.add(id: object.id, fields: [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction])
                    }
                    let run = builder.build()
                    try old.execute("INSERT INTO archive_search_runs (run, level, members) VALUES (1, 0, ?)", run.members)
                    for block in run.blocks {
                        try old.execute(
                            "INSERT INTO archive_search_blocks (run, first_key, block) VALUES (1, ?, ?)",
                            Int64(block.firstKey.rawValue), block.bytes)
                    }
                }
            }
        }
        #expect(try ArchiveDatabase.migrationStatus(path: path).pending.map(\.version) == Array((version + 1)...6))
        let database = try ArchiveDatabase(path: path)
        #expect(try ArchiveDatabase.migrationStatus(path: path).pending.isEmpty)
        #expect(try database.queue.read { try $0.tableExists("archive_objects_search") } == false)
        let runs = try FavoritesSearchTests.runs(of: database)
        if count < SearchRunStore.pendingLimit {
            #expect(runs.isEmpty)
            #expect(try Self.pending(of: database).count == count)
        } else {
            #expect(runs.map(\.members).reduce(0, +) == count)
            #expect(try Self.pending(of: database).isEmpty)
        }
        #expect(try database.integrityReport().isOK)
        try FavoritesSearchTests.expectScanResults(
            database.favorites, keywords: ["寿司", "蕎", "ぷら", "チーズ", "soba", "STRASSE", "🍜", "ｆｕｌｌ", "/1", "12", "xyz"])
    }

    /// Run numbers at their limit: the run after ``SearchRunStore/maximumRun`` cannot
    /// be filed, so the store that would write it is refused whole, naming
    /// `archive reindex`, which numbers the runs from 1 again.
    @Test func runNumbersAtTheirLimitRefuseTheStoreUntilReindex() throws {
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(contentsOf: FavoritesSearchTests.generated(count: 100, seed: 8))
        try database.queue.write { db in try db.execute("UPDATE archive_search_runs SET run = ?", SearchRunStore.maximumRun) }
        #expect(try database.integrityReport().problems == [
            "the favorites search index holds \(try Self.blockCount(of: database)) blocks of no run: rebuild it with `archive reindex`",
        ])
        let more = FavoritesSearchTests.generated(count: 300, seed: 9).map { Fixtures.object($0.id + 1_000, dishName: $0.dishName) }
        #expect(throws: ArchiveStorageError.searchRunsExhausted(path: Database.inMemoryPath, lastRun: SearchRunStore.maximumRun)) {
            try database.favorites.create(contentsOf: more)
        }
        #expect(try database.favorites.allObjects().count == 100)  // refused whole
        try database.queue.write { db in try db.execute("UPDATE archive_search_runs SET run = ?", SearchRunStore.maximumRun + 1) }
        #expect(try database.integrityReport().problems.contains(
            "the favorites search index numbers a run 2147483648, outside 1 to 2147483647: rebuild it with `archive reindex`"))
        #expect(try database.favorites.rebuildSearchIndex() == 100)
        try database.favorites.create(contentsOf: more)
        let numbers = try database.queue.read { db in try db.fetchAll("SELECT run FROM archive_search_runs") { try $0.int(at: 0) } }
        #expect(!numbers.isEmpty && numbers.allSatisfy { (1...10).contains($0) }, "\(numbers)")
        #expect(try database.integrityReport().isOK)
        try FavoritesSearchTests.expectScanResults(database.favorites, keywords: ["寿司", "蕎", "チーズ"])
    }

    static func blockCount(of database: ArchiveDatabase) throws -> Int {
        try database.queue.read { db in try db.fetchOne("SELECT count(*) FROM archive_search_blocks") { try $0.int(at: 0) } ?? 0 }
    }
}
