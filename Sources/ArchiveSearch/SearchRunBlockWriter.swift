/// Cuts a run's entries, given in ascending key order, into blocks of about
/// ``SearchRunBlock/targetSize`` bytes.
///
/// ``append(key:list:)`` hands back each block as it fills, and ``finish()``
/// the last one, so a run of any size is written without holding it whole.
public struct SearchRunBlockWriter: Sendable {
    private var bytes: [UInt8] = []
    private var firstKey = SearchGramKey(rawValue: 0)
    private var lastKey: SearchGramKey?

    /// A writer with no entries.
    public init() {
        bytes.reserveCapacity(SearchRunBlock.targetSize)
    }

    /// Appends the entry `key` with the ID list `list` (``SearchIDList``'s bytes,
    /// not empty); returns the block it completed, if it started a new one.
    ///
    /// Keys must ascend: a key not above the last one is a programming error.
    public mutating func append(key: SearchGramKey, list: UnsafeRawBufferPointer) -> SearchRunBlock? {
        precondition(lastKey.map { key > $0 } ?? true, "search run entries must ascend by key")
        lastKey = key
        var completed: SearchRunBlock?
        let entrySize = 4 + SearchIDList.integerLength(UInt64(list.count)) + list.count
        if !bytes.isEmpty, bytes.count + entrySize > SearchRunBlock.targetSize {
            completed = SearchRunBlock(firstKey: firstKey, bytes: bytes)
            bytes.removeAll(keepingCapacity: true)
        }
        if bytes.isEmpty { firstKey = key }
        let raw = key.rawValue  // little-endian, whatever the machine's order
        bytes.append(UInt8(truncatingIfNeeded: raw))
        bytes.append(UInt8(truncatingIfNeeded: raw >> 8))
        bytes.append(UInt8(truncatingIfNeeded: raw >> 16))
        bytes.append(UInt8(truncatingIfNeeded: raw >> 24))
        SearchIDList.appendInteger(UInt64(list.count), to: &bytes)
        bytes.append(contentsOf: list)
        return completed
    }

    /// The last block, if any entry is not yet in a block handed back.
    public mutating func finish() -> SearchRunBlock? {
        guard !bytes.isEmpty else { return nil }
        defer { bytes.removeAll(keepingCapacity: true) }
        return SearchRunBlock(firstKey: firstKey, bytes: bytes)
    }
}
