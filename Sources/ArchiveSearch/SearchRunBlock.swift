/// One block of a search run: entries of (gram key, list of favorite IDs) in
/// ascending key order, about ``targetSize`` bytes, filed under its first key.
///
/// An entry is the key (4 bytes, little-endian), the list's length in bytes
/// (a variable-length integer) and the list (``SearchIDList``). A key's list
/// is never split between blocks, so the one block filed under the greatest
/// first key not above a key holds that key's whole list, if the run has it.
/// A list longer than a block has a block of its own.
public struct SearchRunBlock: Sendable, Equatable {
    /// The size a block is filled to before the next entry starts a new one.
    public static let targetSize = 4096

    /// The key of the block's first entry, which it is filed under.
    public let firstKey: SearchGramKey
    /// The entries' bytes.
    public let bytes: [UInt8]

    /// A block filed under `firstKey` holding `bytes` (as read back from storage:
    /// ``forEachEntry(_:)`` checks that the two agree).
    public init(firstKey: SearchGramKey, bytes: [UInt8]) {
        self.firstKey = firstKey
        self.bytes = bytes
    }

    // MARK: - Reading

    /// Calls `body` with each entry's key and list bytes, in key order, until it
    /// returns `false`; throws when the block is damaged (its entries are checked
    /// up to the one `body` stops at, its lists when they are read).
    public func forEachEntry(
        _ body: (SearchGramKey, UnsafeRawBufferPointer) throws(SearchRunError) -> Bool
    ) throws(SearchRunError) {
        try Self.forEachEntry(in: bytes, firstKey: firstKey, body)
    }

    /// ``forEachEntry(_:)`` over the bytes of a block filed under `firstKey`.
    public static func forEachEntry(
        in bytes: [UInt8], firstKey: SearchGramKey,
        _ body: (SearchGramKey, UnsafeRawBufferPointer) throws(SearchRunError) -> Bool
    ) throws(SearchRunError) {
        let result: Result<Void, SearchRunError> = bytes.withUnsafeBytes { buffer in
            do throws(SearchRunError) {
                try forEachEntry(inBuffer: buffer, firstKey: firstKey, body)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// ``forEachEntry(_:)`` over a block's bytes read in place (a column of a
    /// statement's row): the list bytes handed to `body` point into `buffer`.
    public static func forEachEntry(
        inBuffer buffer: UnsafeRawBufferPointer, firstKey: SearchGramKey,
        _ body: (SearchGramKey, UnsafeRawBufferPointer) throws(SearchRunError) -> Bool
    ) throws(SearchRunError) {
        try forEachEntryRange(in: buffer, firstKey: firstKey) { (key, list) throws(SearchRunError) in
            try body(key, UnsafeRawBufferPointer(rebasing: buffer[list]))
        }
    }

    /// The block's entries: each key and where its list lies in ``bytes``;
    /// throws when the block is damaged (its lists are not read).
    public func entries() throws(SearchRunError) -> [(key: SearchGramKey, list: Range<Int>)] {
        var entries: [(key: SearchGramKey, list: Range<Int>)] = []
        let result: Result<Void, SearchRunError> = bytes.withUnsafeBytes { buffer in
            do throws(SearchRunError) {
                try Self.forEachEntryRange(in: buffer, firstKey: firstKey) { key, list in
                    entries.append((key, list))
                    return true
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        return entries
    }

    /// Calls `body` with each entry's key and the range of its list in `buffer`,
    /// checking the entries as it goes.
    private static func forEachEntryRange(
        in buffer: UnsafeRawBufferPointer, firstKey: SearchGramKey,
        _ body: (SearchGramKey, Range<Int>) throws(SearchRunError) -> Bool
    ) throws(SearchRunError) {
        guard !buffer.isEmpty else { throw SearchRunError(.emptyBlock, at: 0) }
        var offset = 0
        var previous: UInt32?
        while offset < buffer.count {
            let start = offset
            guard buffer.count - offset >= 4 else { throw SearchRunError(.truncated, at: start) }
            let key = UInt32(buffer[offset]) | UInt32(buffer[offset + 1]) << 8
                | UInt32(buffer[offset + 2]) << 16 | UInt32(buffer[offset + 3]) << 24
            offset += 4
            if let previous {
                guard key > previous else { throw SearchRunError(.keysOutOfOrder, at: start) }
            } else {
                guard key == firstKey.rawValue else { throw SearchRunError(.firstKeyMismatch, at: start) }
            }
            previous = key
            let length = try SearchIDList.readInteger(buffer, at: &offset)
            guard length <= UInt64(buffer.count - offset) else { throw SearchRunError(.truncated, at: start) }
            let list = offset..<(offset + Int(length))
            offset = list.upperBound
            guard try body(SearchGramKey(rawValue: key), list) else { return }
        }
    }

    /// Appends to `ids` the IDs of every entry whose key lies in `keys`
    /// (ascending within an entry; entries one after the other).
    public func appendIDs(in keys: ClosedRange<SearchGramKey>, to ids: inout [Int]) throws(SearchRunError) {
        try forEachEntry { (key, list) throws(SearchRunError) in
            guard key <= keys.upperBound else { return false }
            if key >= keys.lowerBound {
                try SearchIDList.forEach(in: list) { ids.append($0) }
            }
            return true
        }
    }
}
