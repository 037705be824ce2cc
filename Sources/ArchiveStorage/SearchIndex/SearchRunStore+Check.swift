import ArchiveSearch
import SQLite

// MARK: - Checking the index against the table

extension SearchRunStore {
    /// The most damaged blocks or runs one check names.
    static let problemLimit = 5

    /// What `check` reports about the index, reading only: every block and list
    /// decodes, every block belongs to a run, and every stored favorite is covered
    /// (a member of a run, or waiting for one). A favorite that another program
    /// inserted is not covered; one it deleted is harmless (searches check every
    /// candidate). Empty when the database has no index (its tables were dropped).
    static func problems(in db: Database) throws -> [String] {
        guard try db.tableExists(runsTable), try db.tableExists(blocksTable), try db.tableExists(pendingTable) else { return [] }
        let repair = "rebuild it with `archive reindex`"
        var problems: [String] = []
        var members: [Int] = []
        var runs = Set<Int64>()
        try db.withStatement("SELECT run, members FROM \(runsTable) ORDER BY run") { row in
            while try row.step() {
                let run = try row.int64(at: 0)
                runs.insert(run)
                // A run outside 1...maximumRun cannot file its blocks (nor can a run after it).
                if !(1...maximumRun).contains(run), problems.count < problemLimit {
                    problems.append("the favorites search index numbers a run \(run), outside 1 to \(maximumRun): \(repair)")
                }
                do {
                    members += try SearchIDList.ids(in: try row.column([UInt8].self, at: 1))
                } catch let error as SearchRunError where problems.count < problemLimit {
                    problems.append("the favorites search index's run \(run) lists its favorites damaged (byte \(error.offset)): \(repair)")
                } catch let error as SQLiteError where error.resultCode == .mismatch && problems.count < problemLimit {
                    problems.append("the favorites search index's run \(run) has no list of favorites: \(repair)")
                }
            }
        }
        var orphans = 0
        try db.withStatement("SELECT run, first_key, block FROM \(blocksTable) ORDER BY run_key") { row in
            while try row.step() {
                let run = try row.int64(at: 0)
                guard runs.contains(run) else {
                    orphans += 1
                    continue
                }
                do {
                    guard let key = UInt32(exactly: try row.int64(at: 1)) else { throw SearchRunError(.firstKeyMismatch, at: 0) }
                    let block = SearchRunBlock(firstKey: SearchGramKey(rawValue: key), bytes: try row.column([UInt8].self, at: 2))
                    try block.forEachEntry { (_, list) throws(SearchRunError) in
                        try SearchIDList.forEach(in: list) { _ in }
                        return true
                    }
                } catch let error as SearchRunError where problems.count < problemLimit {
                    problems.append("run \(run): \(error)")
                } catch let error as SQLiteError where error.resultCode == .mismatch && problems.count < problemLimit {
                    problems.append("the favorites search index's run \(run) holds a block that is not a blob: \(repair)")
                }
            }
        }
        if orphans > 0 {
            problems.append("the favorites search index holds \(orphans) block\(orphans == 1 ? "" : "s") of no run: \(repair)")
        }
        let covered = SearchIDSet.sortedUnique(members + (try pendingIDs(in: db)))
        var missing = 0
        var examples: [Int] = []
        var next = 0
        try db.withStatement("SELECT id FROM archive_objects ORDER BY id") { row in
            while try row.step() {
                let id = try row.int(at: 0)
                while next < covered.count, covered[next] < id { next += 1 }
                if next < covered.count, covered[next] == id { continue }
                missing += 1
                if examples.count < 3 { examples.append(id) }
            }
        }
        if missing > 0 {
            let ids = examples.map(String.init).joined(separator: ", ") + (missing > examples.count ? ", …" : "")
            problems.append("the favorites search index misses \(missing) stored favorite\(missing == 1 ? "" : "s") (\(ids); another program added them, and searches miss them): run `archive reindex`")
        }
        return problems
    }
}
