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
    /// blocks included). `keep`, when given, says which IDs stay; without it every
    /// ID does, and a key that one run alone holds has its list copied as it is.
    public static func merge(
        _ sources: [() throws -> SearchRunBlock?],
        keeping keep: ((Int) -> Bool)? = nil,
        emit: (SearchRunBlock) throws -> Void
    ) throws {
        var cursors: [Cursor] = []
        for index in sources.indices {
            var cursor = Cursor(source: index)
            if try cursor.advance(sources[index]) { cursors.append(cursor) }
        }
        var writer = SearchRunBlockWriter()
        // Reused from key to key: the IDs of each run's list, one after the other.
        var decoded: [Int] = []
        var lists: [Range<Int>] = []
        var ids: [Int] = []
        var merged: [UInt8] = []
        var holders: [Int] = []
        while let key = cursors.lazy.map(\.key).min() {
            holders.removeAll(keepingCapacity: true)
            for index in cursors.indices where cursors[index].key == key { holders.append(index) }
            if keep == nil, holders.count == 1 {
                // The common case: one run holds the key, and every ID stays. The list
                // is read through (a damaged one throws) but copied as it is.
                try cursors[holders[0]].checkList()
                if let block = cursors[holders[0]].withList({ writer.append(key: key, list: $0) }) { try emit(block) }
            } else if keep == nil, let spans = try disjointSpans(of: holders, in: cursors) {
                // Runs of separate ID ranges (an import's): the lists one after the other,
                // copied, each but the first with its first ID taken from the last one before.
                merged.removeAll(keepingCapacity: true)
                var previousLast: Int?
                for span in spans {
                    cursors[span.holder].withList { list in
                        if let previousLast {
                            SearchIDList.appendInteger(UInt64(UInt(bitPattern: span.first &- previousLast)), to: &merged)
                            merged.append(contentsOf: UnsafeRawBufferPointer(rebasing: list[span.afterFirst...]))
                        } else {
                            merged.append(contentsOf: list)
                        }
                    }
                    previousLast = span.last
                }
                if !merged.isEmpty, let block = merged.withUnsafeBytes({ writer.append(key: key, list: $0) }) { try emit(block) }
            } else {
                decoded.removeAll(keepingCapacity: true)
                lists.removeAll(keepingCapacity: true)
                for index in holders {
                    let start = decoded.count
                    try cursors[index].appendIDs(to: &decoded)
                    if decoded.count > start { lists.append(start..<decoded.count) }
                }
                mergeLists(lists.map { Array(decoded[$0]) }, keeping: keep ?? { _ in true }, into: &ids)
                if !ids.isEmpty {
                    merged.removeAll(keepingCapacity: true)
                    SearchIDList.append(ids, to: &merged)
                    if let block = merged.withUnsafeBytes({ writer.append(key: key, list: $0) }) { try emit(block) }
                }
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

    /// Where one run's list of the key at hand starts and ends.
    struct Span {
        /// The index of the run's cursor.
        let holder: Int
        /// Its first and last IDs.
        let first: Int
        let last: Int
        /// The offset of its second ID's bytes (past its first integer).
        let afterFirst: Int
    }

    /// The lists of `holders`, read through (a damaged one throws), in the order
    /// of their first IDs, when each then starts above the one before ends; `nil`
    /// when two overlap. Empty lists are left out.
    private static func disjointSpans(of holders: [Int], in cursors: [Cursor]) throws(SearchRunError) -> [Span]? {
        var spans: [Span] = []
        for holder in holders {
            if let bounds = try cursors[holder].bounds() {
                spans.append(Span(holder: holder, first: bounds.first, last: bounds.last, afterFirst: bounds.afterFirst))
            }
        }
        guard let order = disjointOrder(spans.map { (first: $0.first, last: $0.last) }) else { return nil }
        return order.map { spans[$0] }
    }

    /// The indices of `bounds` (each a list's first and last ID) ordered by first
    /// ID, when each list then starts above the one before ends; `nil` when two overlap.
    static func disjointOrder(_ bounds: [(first: Int, last: Int)]) -> [Int]? {
        let order = bounds.indices.sorted { bounds[$0].first < bounds[$1].first }
        for index in order.indices.dropFirst() where bounds[order[index]].first <= bounds[order[index - 1]].last {
            return nil
        }
        return order
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

        /// Appends the IDs of the entry at hand to `ids`.
        func appendIDs(to ids: inout [Int]) throws(SearchRunError) {
            let range = entries[entry].list
            let result: Result<Void, SearchRunError> = block.withUnsafeBytes { bytes in
                do throws(SearchRunError) {
                    try SearchIDList.forEach(in: UnsafeRawBufferPointer(rebasing: bytes[range])) { ids.append($0) }
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            try result.get()
        }

        /// Throws when the list of the entry at hand does not decode.
        func checkList() throws(SearchRunError) {
            let range = entries[entry].list
            let result: Result<Void, SearchRunError> = block.withUnsafeBytes { bytes in
                do throws(SearchRunError) {
                    try SearchIDList.forEach(in: UnsafeRawBufferPointer(rebasing: bytes[range])) { _ in }
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            try result.get()
        }

        /// The first and last IDs of the entry at hand, and the offset past its
        /// first integer; `nil` for an empty list. Throws when it does not decode.
        func bounds() throws(SearchRunError) -> (first: Int, last: Int, afterFirst: Int)? {
            let range = entries[entry].list
            let result: Result<(first: Int, last: Int, afterFirst: Int)?, SearchRunError> = block.withUnsafeBytes { bytes in
                do throws(SearchRunError) {
                    let list = UnsafeRawBufferPointer(rebasing: bytes[range])
                    guard !list.isEmpty else { return .success(nil) }
                    var offset = 0
                    let first = Int(bitPattern: UInt(try SearchIDList.readInteger(list, at: &offset)))
                    var last = first
                    try SearchIDList.forEach(in: list) { last = $0 }
                    return .success((first, last, offset))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }

        /// Calls `body` with the list bytes of the entry at hand.
        func withList<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            let range = entries[entry].list
            return block.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
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
