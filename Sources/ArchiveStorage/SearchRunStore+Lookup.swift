import ArchiveSearch
import SQLite

// MARK: - Looking keywords up

extension SearchRunStore {
    /// The most lookups intersected: the rarest few narrow a search as well as all.
    static let maximumIntersected = 3
    /// A lookup whose lists take more than this many times the rarest one's bytes
    /// is left out: decoding it would cost more than the candidates it removes.
    static let densityFactor = 64

    /// One lookup's lists, from every run: their bytes one after the other.
    struct Lists {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []

        /// The IDs of every list, ascending, each once.
        func ids() throws(SearchRunError) -> [Int] {
            var ids: [Int] = []
            let result: Result<Void, SearchRunError> = bytes.withUnsafeBytes { buffer in
                do throws(SearchRunError) {
                    for range in ranges {
                        try SearchIDList.forEach(in: UnsafeRawBufferPointer(rebasing: buffer[range])) { ids.append($0) }
                    }
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            try result.get()
            return ranges.count > 1 ? SearchIDSet.sortedUnique(ids) : ids
        }
    }

    /// The favorites that may match a keyword whose lookups are `lookups`
    /// (``SearchGramKey/lookups(for:)``), ascending: the intersection of the
    /// rarest lookups' lists over every run, and every favorite waiting for a
    /// run. `nil` when there are more than `limit`.
    static func candidates(for lookups: [ClosedRange<SearchGramKey>], limit: Int, in db: Database) throws -> [Int]? {
        let runs = try db.fetchAll(runNumbersSQL) { try $0.int64(at: 0) }
        var found: [Lists] = []
        for keys in lookups {
            var lists = Lists()
            for run in runs { try collect(keys, run: run, into: &lists, in: db) }
            found.append(lists)
        }
        var ids: [Int] = []
        let order = found.indices.sorted { found[$0].bytes.count < found[$1].bytes.count }
        if let rarest = order.first, !found[rarest].ranges.isEmpty {
            let bound = found[rarest].bytes.count * densityFactor
            ids = try found[rarest].ids()
            for index in order.dropFirst().prefix(maximumIntersected - 1) where found[index].bytes.count <= bound {
                ids = SearchIDSet.intersection(ids, try found[index].ids())
                if ids.isEmpty { break }
            }
        }
        let pending = try pendingIDs(in: db)
        if !pending.isEmpty { ids = SearchIDSet.sortedUnique(ids + pending) }
        return ids.count <= limit ? ids : nil
    }

    /// Appends the lists of `run` whose keys lie in `keys`: those of the block
    /// filed at or below the lower bound, and of every block filed within.
    private static func collect(_ keys: ClosedRange<SearchGramKey>, run: Int64, into lists: inout Lists, in db: Database) throws {
        let at = try db.cachedStatement(blockAtSQL)
        defer { at.reset() }
        let lower = rowKey(run: run, key: keys.lowerBound.rawValue)
        try at.bind(rowKeys(of: run).first, at: 1)
        try at.bind(lower, at: 2)
        if try at.step() { try append(keys, from: at, to: &lists) }
        guard keys.lowerBound < keys.upperBound else { return }
        let within = try db.cachedStatement(blocksWithinSQL)
        defer { within.reset() }
        try within.bind(lower, at: 1)
        try within.bind(rowKey(run: run, key: keys.upperBound.rawValue), at: 2)
        while try within.step() { try append(keys, from: within, to: &lists) }
    }

    /// Appends the lists in `keys` of the block in `row`'s current row, read in place.
    private static func append(_ keys: ClosedRange<SearchGramKey>, from row: Statement, to lists: inout Lists) throws {
        guard let firstKey = UInt32(exactly: try row.int64(at: 0)) else { throw SearchRunError(.firstKeyMismatch, at: 0) }
        // Moved out and back, so that appending never copies the bytes gathered so far.
        var found = Lists()
        swap(&found, &lists)
        defer { swap(&found, &lists) }
        let result: Result<Void, SearchRunError> = row.withBlob(at: 1) { buffer in
            do throws(SearchRunError) {
                try SearchRunBlock.forEachEntry(inBuffer: buffer, firstKey: SearchGramKey(rawValue: firstKey)) { key, list in
                    guard key <= keys.upperBound else { return false }
                    if key >= keys.lowerBound {
                        let start = found.bytes.count
                        found.bytes.append(contentsOf: list)
                        found.ranges.append(start..<found.bytes.count)
                    }
                    return true
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }
}
