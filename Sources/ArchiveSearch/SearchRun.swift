/// A search run held in memory: its blocks in key order and the IDs of the
/// favorites it was built from.
///
/// What ``SearchRunBuilder`` and ``SearchRunMerger`` make and the storage
/// engine writes, a row per block; the lookups here are the ones the engine
/// makes through SQL, on blocks it reads back.
public struct SearchRun: Sendable, Equatable {
    /// The blocks, ascending by first key.
    public var blocks: [SearchRunBlock]
    /// The IDs of the favorites the run covers, ascending (``SearchIDList``'s bytes).
    public var members: [UInt8]

    /// A run of `blocks`, covering the favorites listed in `members`.
    public init(blocks: [SearchRunBlock], members: [UInt8]) {
        self.blocks = blocks
        self.members = members
    }

    /// The IDs of the favorites the run covers, ascending.
    public func memberIDs() throws(SearchRunError) -> [Int] {
        try SearchIDList.ids(in: members)
    }

    /// The blocks that may hold keys in `keys`: the last one filed at or below
    /// its lower bound, and every later one filed within it.
    public func blocks(for keys: ClosedRange<SearchGramKey>) -> ArraySlice<SearchRunBlock> {
        var low = 0
        var high = blocks.count
        // The first block filed above the lower bound.
        while low < high {
            let middle = (low + high) / 2
            if blocks[middle].firstKey <= keys.lowerBound { low = middle + 1 } else { high = middle }
        }
        let start = max(0, low - 1)
        var end = low
        while end < blocks.count, blocks[end].firstKey <= keys.upperBound { end += 1 }
        return blocks[start..<end]
    }

    /// The IDs (ascending, each once) of the favorites holding a gram whose key
    /// lies in `keys`.
    public func ids(in keys: ClosedRange<SearchGramKey>) throws(SearchRunError) -> [Int] {
        var ids: [Int] = []
        for block in blocks(for: keys) { try block.appendIDs(in: keys, to: &ids) }
        return SearchIDSet.sortedUnique(ids)
    }
}
