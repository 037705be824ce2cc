import ArchiveSearch
import SQLite

/// The favorites search index's tables (migrations 0004, 0005): runs of gram keys, their
/// blocks, and the favorites waiting for a run. Every call works inside the
/// caller's transaction.
///
/// Writes: a bulk store builds a run per ``bulkRunSize`` favorites it stores; a
/// single store adds its favorite to the waiting ones, which become a run when
/// ``pendingLimit`` wait. Whenever ``fanIn`` runs share a level they are merged,
/// streaming, into one run of a larger level. A removal writes nothing: a run may
/// list a favorite that is gone (the search checks every candidate) until its
/// run merges, when the merge leaves it out.
enum SearchRunStore {
    static let runsTable = "archive_search_runs"
    static let blocksTable = "archive_search_blocks"
    static let pendingTable = "archive_search_pending"

    /// How many favorites stored one at a time wait before they become a run.
    static let pendingLimit = 64
    /// How many runs of one level merge into one.
    static let fanIn = 8
    /// Favorites per run in a bulk store. The builder's two pair buffers take
    /// 16 bytes a character of text: about 9 MB for 4,096 favorites of the
    /// benchmarks' size, which keeps an import of a million within 64 MB.
    static var bulkRunSize: Int { bulkRunSizeOverride ?? 4096 }
    /// Another ``bulkRunSize`` for the work of the task that binds it: tests of the bulk
    /// paths (several runs, the in-memory merge, a refusal midway) take a few thousand
    /// favorites instead of tens of thousands through the debug build's run builder.
    /// Read once per bulk store, where the store starts.
    @TaskLocal package static var bulkRunSizeOverride: Int?
    /// How many of its runs a bulk store merges in memory, on the builder's
    /// thread, before it writes them (``SearchRunBatch``): each favorite's
    /// postings are then written once fewer. Four, not ``fanIn``: the runs held
    /// and the merged run are megabytes, and `archive import` of a million
    /// favorites peaked at 68 MB with 8, 60 MB with 4 (58 MB merging none; the
    /// target is 64).
    static let bulkMergeFanIn = 4

    /// A run's level: 0 below ``pendingLimit`` × ``fanIn`` members, one more for
    /// each further factor of ``fanIn``.
    static func level(members: Int) -> Int {
        var level = 0
        var bound = pendingLimit * fanIn
        while members >= bound, bound <= Int.max / fanIn {
            level += 1
            bound *= fanIn
        }
        return level
    }

    /// The largest run number: a block is filed under its run in the high 32 bits of
    /// a positive 64-bit row key (migration 0005), its first key in the low 32.
    static let maximumRun = Int64(Int32.max)

    /// The row key of a block of `run` whose first key is `key`.
    static func rowKey(run: Int64, key: UInt32) -> Int64 {
        run &<< 32 | Int64(key)
    }

    /// The smallest and the largest row key a block of `run` can have.
    static func rowKeys(of run: Int64) -> (first: Int64, last: Int64) {
        (rowKey(run: run, key: 0), rowKey(run: run, key: .max))
    }

    // MARK: - SQL

    static let lastRunSQL = "SELECT coalesce(max(run), 0) FROM \(runsTable)"
    static let insertRunSQL = "INSERT INTO \(runsTable) (run, level, members) VALUES (?, ?, ?)"
    static let insertBlockSQL = "INSERT INTO \(blocksTable) (run_key, block) VALUES (?, ?)"
    static let addPendingSQL = "INSERT OR IGNORE INTO \(pendingTable) (id) VALUES (?)"
    static let removePendingSQL = "DELETE FROM \(pendingTable) WHERE id = ?"
    static let pendingCountSQL = "SELECT count(*) FROM \(pendingTable)"
    static let pendingIDsSQL = "SELECT id FROM \(pendingTable)"
    static let crowdedLevelSQL = "SELECT level FROM \(runsTable) GROUP BY level HAVING count(*) >= \(fanIn) ORDER BY level LIMIT 1"
    static let oldestRunsSQL = "SELECT run, members FROM \(runsTable) WHERE level = ? ORDER BY run LIMIT \(fanIn)"
    /// A run's blocks (bound to ``firstRowKey(of:)`` and ``lastRowKey(of:)``).
    static let runBlocksSQL = "SELECT first_key, block FROM \(blocksTable) WHERE run_key BETWEEN ?1 AND ?2 ORDER BY run_key"
    static let deleteRunBlocksSQL = "DELETE FROM \(blocksTable) WHERE run_key BETWEEN ?1 AND ?2"
    static let storedSQL = "SELECT 1 FROM archive_objects WHERE id = ?"
    static let runNumbersSQL = "SELECT run FROM \(runsTable) ORDER BY run"
    /// The block of a run that holds a key's list if the run has the key: the last filed
    /// at or below it (bound to the run's first row key and the key's), its size and row key; the
    /// block is `NULL` when it is larger than ?3. A blob's size is in its row's header, so
    /// a block left out is not read.
    static let blockAtSQL = """
        SELECT first_key, CASE WHEN length(block) <= ?3 THEN block END, length(block), run_key
        FROM \(blocksTable) WHERE run_key BETWEEN ?1 AND ?2 ORDER BY run_key DESC LIMIT 1
        """
    /// A block, by row key (one that ``blockAtSQL`` or ``blocksWithinSQL`` left out).
    static let blockSQL = "SELECT first_key, block FROM \(blocksTable) WHERE run_key = ?"
    /// The blocks of a run filed within a range of keys, after its lower bound (bound to
    /// both bounds' row keys), and their sizes, as ``blockAtSQL`` gives them.
    static let blocksWithinSQL = """
        SELECT first_key, CASE WHEN length(block) <= ?3 THEN block END, length(block), run_key
        FROM \(blocksTable) WHERE run_key > ?1 AND run_key <= ?2 ORDER BY run_key
        """
    /// Every waiting favorite's texts, by ID (a waiting ID that is gone is skipped).
    static let pendingTextsSQL = """
        SELECT o.id, o.photo_url, o.category, o.dish_name, o.shop_name, o.introduction
        FROM \(pendingTable) p JOIN archive_objects o ON o.id = p.id ORDER BY o.id
        """

    // MARK: - Writing runs

    /// Writes `run` (built from `members` favorites) as a new run and returns its
    /// number; a run that covers no favorite is not written (`nil`).
    @discardableResult
    static func write(_ run: SearchRun, members: Int, in db: Database) throws -> Int64? {
        guard members > 0 else { return nil }
        let number = try nextRun(in: db)
        let insertRun = try db.cachedStatement(insertRunSQL)
        defer { insertRun.reset() }
        try insertRun.bind(number, at: 1)
        try insertRun.bind(level(members: members), at: 2)
        try insertRun.bind(run.members, at: 3)
        try insertRun.run()
        for block in run.blocks { try insert(block, run: number, in: db) }
        return number
    }

    /// The number of the next run: one past the largest, at most ``maximumRun``.
    private static func nextRun(in db: Database) throws -> Int64 {
        let last = try db.fetchOne(lastRunSQL) { try $0.int64(at: 0) } ?? 0
        guard last < maximumRun else { throw ArchiveStorageError.searchRunsExhausted(path: db.path, lastRun: last) }
        return max(last, 0) + 1
    }

    private static func insert(_ block: SearchRunBlock, run: Int64, in db: Database) throws {
        let statement = try db.cachedStatement(insertBlockSQL)
        defer { statement.reset() }
        try statement.bind(rowKey(run: run, key: block.firstKey.rawValue), at: 1)
        try statement.bind(block.bytes, at: 2)
        try statement.run()
    }

    /// Merges runs while a level holds ``fanIn`` of them, lowest level first,
    /// oldest runs first. The runs in `fresh` were written in this transaction by
    /// a store that removed nothing: their favorites are stored, so only the
    /// others' members are checked against the table.
    static func mergeCrowdedLevels(in db: Database, fresh: inout Set<Int64>) throws {
        while let level = try db.fetchOne(crowdedLevelSQL, row: { try $0.int(at: 0) }) {
            let inputs = try db.fetchAll(oldestRunsSQL, level) { row in
                (run: try row.int64(at: 0), members: try row.column([UInt8].self, at: 1))
            }
            let merged = try merge(inputs, fresh: fresh, in: db)
            if let merged, inputs.allSatisfy({ fresh.contains($0.run) }) { fresh.insert(merged) }
            for input in inputs { fresh.remove(input.run) }
        }
    }

    /// Merges `inputs` into one new run, leaving out the favorites that are gone,
    /// and deletes them; returns the new run's number (`nil` when none is left).
    private static func merge(_ inputs: [(run: Int64, members: [UInt8])], fresh: Set<Int64>, in db: Database) throws -> Int64? {
        var gone = Set<Int>()
        var allMembers: [Int] = []
        let stored = try db.cachedStatement(storedSQL)
        for input in inputs {
            let ids = try SearchIDList.ids(in: input.members)
            allMembers += ids
            guard !fresh.contains(input.run) else { continue }
            for id in ids {
                try stored.bind(id, at: 1)
                defer { stored.reset() }
                if try !stored.step() { gone.insert(id) }
            }
        }
        // In place: at a million favorites, a merge's members are megabytes.
        SearchIDSet.sortUnique(&allMembers)
        if !gone.isEmpty { allMembers.removeAll { gone.contains($0) } }
        let members = allMembers
        var number: Int64?
        if !members.isEmpty {
            let next = try nextRun(in: db)
            let readers = try inputs.map { input in
                let statement = try db.makeStatement(runBlocksSQL)
                let keys = rowKeys(of: input.run)
                try statement.bind(keys.first, at: 1)
                try statement.bind(keys.last, at: 2)
                return statement
            }
            defer { for reader in readers { reader.reset() } }
            let sources: [() throws -> SearchRunBlock?] = readers.map { reader in
                { () throws -> SearchRunBlock? in
                    guard try reader.step() else { return nil }
                    return try Self.block(from: reader)
                }
            }
            let keep: ((Int) -> Bool)? = gone.isEmpty ? nil : { !gone.contains($0) }
            try SearchRunMerger.merge(sources, keeping: keep) { block in try insert(block, run: next, in: db) }
            var memberBytes: [UInt8] = []
            SearchIDList.append(members, to: &memberBytes)
            try db.execute(insertRunSQL, next, level(members: members.count), memberBytes)
            number = next
        }
        for input in inputs {
            let keys = rowKeys(of: input.run)
            try db.execute(deleteRunBlocksSQL, keys.first, keys.last)
            try db.execute("DELETE FROM \(runsTable) WHERE run = ?", input.run)
        }
        return number
    }

    /// The block in the current row of a `first_key, block` query; a key outside
    /// 32 bits is damage, reported like a damaged block.
    static func block(from row: Statement) throws -> SearchRunBlock {
        let key = try row.int64(at: 0)
        guard let firstKey = UInt32(exactly: key) else { throw SearchRunError(.firstKeyMismatch, at: 0) }
        return SearchRunBlock(firstKey: SearchGramKey(rawValue: firstKey), bytes: try row.column([UInt8].self, at: 1))
    }

    // MARK: - Favorites waiting for a run

    /// Notes that the favorite `id` was stored or changed one at a time, and makes
    /// the waiting favorites a run when ``pendingLimit`` wait.
    static func addPending(_ id: Int, in db: Database) throws {
        let add = try db.cachedStatement(addPendingSQL)
        defer { add.reset() }
        try add.bind(id, at: 1)
        try add.run()
        if try pendingCount(in: db) >= pendingLimit { try indexPending(in: db) }
    }

    /// Forgets the waiting favorite `id` (removed).
    static func removePending(_ id: Int, in db: Database) throws {
        let remove = try db.cachedStatement(removePendingSQL)
        defer { remove.reset() }
        try remove.bind(id, at: 1)
        try remove.run()
    }

    /// How many favorites wait for a run.
    static func pendingCount(in db: Database) throws -> Int {
        try db.fetchOne(pendingCountSQL) { try $0.int(at: 0) } ?? 0
    }

    /// The IDs of the favorites waiting for a run.
    static func pendingIDs(in db: Database) throws -> [Int] {
        try db.fetchAll(pendingIDsSQL) { try $0.int(at: 0) }
    }

    /// Builds runs of the waiting favorites from their stored texts, as a bulk
    /// store builds its runs (``SearchRunBatch``: a run per ``bulkRunSize``
    /// favorites, built on a thread of its own while the next are read, every
    /// ``bulkMergeFanIn`` merged in memory), empties the waiting list and merges;
    /// returns how many favorites were indexed.
    @discardableResult
    static func indexPending(in db: Database) throws -> Int {
        // The bulk store's batch: runs built on its thread while this one reads
        // the next favorites, merged in memory, written and merged as they come.
        var batch = SearchRunBatch()
        var indexed = 0
        let statement = try db.makeStatement(pendingTextsSQL)
        defer { statement.reset() }
        while try statement.step() {
            let id = try statement.int(at: 0)
            // Valid until the next step: the batch copies them.
            try statement.withConvertedTexts(at: [1, 2, 3, 4, 5]) { texts in try batch.add(id: id, utf8Texts: texts, in: db) }
            indexed += 1
        }
        try batch.finish(in: db, waiting: false)
        try db.execute("DELETE FROM \(pendingTable)")
        return indexed
    }

    /// Empties the index, then indexes every stored favorite; returns how many.
    static func rebuild(in db: Database) throws -> Int {
        try db.execute("DELETE FROM \(blocksTable); DELETE FROM \(runsTable); DELETE FROM \(pendingTable)")
        try db.execute("INSERT INTO \(pendingTable) (id) SELECT id FROM archive_objects")
        return try indexPending(in: db)
    }
}
