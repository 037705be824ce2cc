import SQLite

/// The favorites a bulk store has written but not yet indexed, because they came
/// out of ID order.
///
/// FTS5 writes its pending index out as a new segment whenever a row's ID is
/// lower than the one written before it. An export lists favorites newest first,
/// so importing one wrote a segment per favorite (72 s for a million, merging
/// them). In a bulk store, a favorite whose ID is higher than every one indexed
/// before is indexed at once (the texts are at hand); the others are kept here by
/// ID and indexed at the end of the same transaction, in ID order, from the table.
struct DeferredIndexEntries {
    /// The highest ID the index was written for in this transaction.
    private(set) var lastIndexedID = Int.min
    /// The IDs stored but not yet indexed, in arrival order.
    private(set) var ids: [Int] = []

    /// Whether the new favorite `id` waits (it is out of order, and is now kept),
    /// or is to be indexed now (and is noted as the last one indexed).
    mutating func defers(_ id: Int) -> Bool {
        if id > lastIndexedID {
            lastIndexedID = id
            return false
        }
        ids.append(id)
        return true
    }

    /// Notes that the index was just written for `id` (a refreshed favorite).
    mutating func indexed(_ id: Int) {
        lastIndexedID = id
    }

    /// Indexes every waiting favorite in ID order, calling `index` with each ID.
    mutating func flush(_ index: (Int) throws -> Void) throws {
        guard !ids.isEmpty else { return }
        ids.sort()
        for id in ids { try index(id) }
        lastIndexedID = ids[ids.count - 1]
        ids = []
    }
}
