/// Merges search runs into one: for each key, the union of the runs' lists.
///
/// Runs of one level become one run of the next, so that a search looks a key
/// up in a few runs, not in one per batch of favorites written. Each run is
/// read a block at a time (its source hands back the run's next block, `nil`
/// at its end) and the merged run is handed back a block at a time, so runs
/// of any size merge in the memory of a few blocks and of the longest list.
/// IDs that `keep` refuses (favorites removed since) are left out.
public enum SearchRunMerger {
    /// Merges the runs that `sources` read, calling `emit` with each block of the
    /// merged run, in key order. Throws what a source or `emit` throws, and
    /// ``SearchRunError`` when a run is damaged (keys out of order across its
    /// blocks included).
    public static func merge(
        _ sources: [() throws -> SearchRunBlock?],
        keeping keep: (Int) -> Bool = { _ in true },
        emit: (SearchRunBlock) throws -> Void
    ) throws {
        var cursors: [Cursor] = []
        for index in sources.indices {
            var cursor = Cursor(source: index)
            if try cursor.advance(sources[index]) { cursors.append(cursor) }
        }
        var writer = SearchRunBlockWriter()
        var lists: [[Int]] = []
        var ids: [Int] = []
        var merged: [UInt8] = []
        while let key = cursors.lazy.map(\.key).min() {
            lists.removeAll(keepingCapacity: true)
            for cursor in cursors where cursor.key == key { lists.append(try cursor.ids()) }
            mergeLists(lists, keeping: keep, into: &ids)
            if !ids.isEmpty {
                merged.removeAll(keepingCapacity: true)
                SearchIDList.append(ids, to: &merged)
                if let block = merged.withUnsafeBytes({ writer.append(key: key, list: $0) }) { try emit(block) }
            }
            var index = 0
            while index < cursors.count {
                if cursors[index].key != key {
                    index += 1
                } else if try cursors[index].advance(sources[cursors[index].source]) {
                    index += 1
                } else {
                    cursors.remove(at: index)
                }
            }
        }
        if let block = writer.finish() { try emit(block) }
    }

    /// The union of `lists` (each ascending), ascending, each ID once, without
    /// those `keep` refuses, into `ids`: the smallest head each time.
    static func mergeLists(_ lists: [[Int]], keeping keep: (Int) -> Bool, into ids: inout [Int]) {
        ids.removeAll(keepingCapacity: true)
        var heads = [Int](repeating: 0, count: lists.count)
        while true {
            var smallest = -1
            for list in lists.indices where heads[list] < lists[list].count {
                if smallest < 0 || lists[list][heads[list]] < lists[smallest][heads[smallest]] { smallest = list }
            }
            guard smallest >= 0 else { return }
            let id = lists[smallest][heads[smallest]]
            heads[smallest] += 1
            if ids.last != id, keep(id) { ids.append(id) }
        }
    }

    /// One run being read: its current block's entries and the one at hand.
    private struct Cursor {
        /// The index of the run's source.
        let source: Int
        private var block: [UInt8] = []
        /// Each entry of the current block: its key and its list's bytes.
        private var entries: [(key: SearchGramKey, list: Range<Int>)] = []
        private var entry = 0

        init(source: Int) {
            self.source = source
        }

        /// The key of the entry at hand.
        var key: SearchGramKey { entries[entry].key }

        /// The IDs of the entry at hand.
        func ids() throws(SearchRunError) -> [Int] {
            let range = entries[entry].list
            let result: Result<[Int], SearchRunError> = block.withUnsafeBytes { bytes in
                do throws(SearchRunError) {
                    return .success(try SearchIDList.ids(in: UnsafeRawBufferPointer(rebasing: bytes[range])))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }

        /// Moves to the next entry, reading the run's next block when this one
        /// is done; `false` at the run's end.
        mutating func advance(_ source: () throws -> SearchRunBlock?) throws -> Bool {
            if entry + 1 < entries.count {
                entry += 1
                return true
            }
            let previous = entries.last?.key
            guard let next = try source() else { return false }
            if let previous, next.firstKey <= previous { throw SearchRunError(.keysOutOfOrder, at: 0) }
            entries = try next.entries()
            block = next.bytes
            entry = 0
            return true
        }
    }
}
