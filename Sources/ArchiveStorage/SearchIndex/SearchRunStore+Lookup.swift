import ArchiveSearch
import SQLite

// MARK: - Looking keywords up

extension SearchRunStore {
    /// The most lookups intersected: the rarest few narrow a search as well as all.
    static let maximumIntersected = 3
    /// A lookup whose lists take more than this many times the rarest one's bytes
    /// is left out: decoding it would cost more than the candidates it removes.
    static let densityFactor = 64

    /// A block of more bytes than this holds a list of its own (``SearchRunBlock/targetSize``
    /// bounds the blocks that hold several): a lookup leaves it unread, counting its
    /// bytes, until the lookup is among the rarest.
    static let unreadBlockBytes = 4 * SearchRunBlock.targetSize

    /// One lookup's lists, from every run: their bytes one after the other, and the
    /// bytes of the large blocks left unread.
    struct Lists {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        var unread = 0
        /// The row keys of the blocks left unread.
        var unreadBlocks: [Int64] = []

        /// The lists' bytes, with the blocks left unread.
        var size: Int { bytes.count &+ unread }

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
    ///
    /// Lookups are ranked by their lists' bytes; a block larger than
    /// ``unreadBlockBytes`` counts by the size SQLite keeps in its row's header, and
    /// is read only if its lookup is intersected: a window that most favorites hold
    /// (megabytes of lists at a million) then costs a few seeks. (`unreadOver`: for tests.)
    static func candidates(
        for lookups: [ClosedRange<SearchGramKey>], limit: Int, unreadOver unreadLimit: Int = unreadBlockBytes, in db: Database
    ) throws -> [Int]? {
        let runs = try db.fetchAll(runNumbersSQL) { try $0.int64(at: 0) }
        var found: [Lists] = []
        for keys in lookups {
            var lists = Lists()
            for run in runs { try collect(keys, run: run, into: &lists, unreadOver: unreadLimit, in: db) }
            found.append(lists)
        }
        // The intersected lookups' lists, whole: the blocks left unread read now.
        func read(_ index: Int) throws -> Lists {
            var lists = found[index]
            for rowKey in lists.unreadBlocks {
                let block = try db.cachedStatement(blockSQL)
                defer { block.reset() }
                try block.bind(rowKey, at: 1)
                if try block.step() { try append(lookups[index], from: block, to: &lists) }
            }
            return lists
        }
        var ids: [Int] = []
        let order = found.indices.sorted { found[$0].size < found[$1].size }
        if let rarest = order.first, found[rarest].size > 0 {
            let size = found[rarest].size
            let bound = size > Int.max / densityFactor ? Int.max : size * densityFactor
            ids = try read(rarest).ids()
            for index in order.dropFirst().prefix(maximumIntersected - 1) where found[index].size <= bound {
                if ids.isEmpty { break }
                ids = SearchIDSet.intersection(ids, try read(index).ids())
            }
        }
        let pending = try pendingIDs(in: db)
        if !pending.isEmpty { ids = SearchIDSet.sortedUnique(ids + pending) }
        return ids.count <= limit ? ids : nil
    }

    /// Appends the lists of `run` whose keys lie in `keys`: those of the block
    /// filed at or below the lower bound, and of every block filed within; a block
    /// of more than `unreadOver` bytes is counted in ``Lists/unread`` instead.
    private static func collect(
        _ keys: ClosedRange<SearchGramKey>, run: Int64, into lists: inout Lists, unreadOver limit: Int, in db: Database
    ) throws {
        let at = try db.cachedStatement(blockAtSQL)
        defer { at.reset() }
        let lower = rowKey(run: run, key: keys.lowerBound.rawValue)
        try at.bind(rowKeys(of: run).first, at: 1)
        try at.bind(lower, at: 2)
        try at.bind(limit, at: 3)
        if try at.step() { try read(keys, block: at, into: &lists) }
        guard keys.lowerBound < keys.upperBound else { return }
        let within = try db.cachedStatement(blocksWithinSQL)
        defer { within.reset() }
        try within.bind(lower, at: 1)
        try within.bind(rowKey(run: run, key: keys.upperBound.rawValue), at: 2)
        try within.bind(limit, at: 3)
        while try within.step() { try read(keys, block: within, into: &lists) }
    }

    /// Appends the lists of the block in `row`'s current row, or counts its size
    /// when the query left it out.
    private static func read(_ keys: ClosedRange<SearchGramKey>, block row: Statement, into lists: inout Lists) throws {
        guard !row.isNull(at: 1) else {
            lists.unread &+= try row.int(at: 2)
            lists.unreadBlocks.append(try row.int64(at: 3))
            return
        }
        try append(keys, from: row, to: &lists)
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
