import ArchiveSearch
import SQLite

/// The search runs a bulk store builds as it stores favorites: a run per
/// ``SearchRunStore/bulkRunSize`` favorites, written and merged in the store's
/// transaction, so that no favorite waits for a run one at a time. A bulk store
/// of fewer than ``SearchRunStore/pendingLimit`` favorites makes no run of its
/// own: they wait, as favorites stored alone do.
struct SearchRunBatch {
    private var builder = SearchRunBuilder(capacity: SearchRunStore.bulkRunSize)
    /// The favorites added since the last run.
    private var ids: [Int] = []
    /// The runs this store wrote (their favorites are all stored).
    private var fresh = Set<Int64>()
    /// Whether this store wrote a run yet.
    private var wroteRun = false

    /// Adds a favorite stored or changed by the bulk store, and writes a run when
    /// the builder is full.
    mutating func add(_ object: StoredArchiveObject, in db: Database) throws {
        try add(id: object.id, texts: [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction], in: db)
    }

    /// Adds the favorite `id` with its five texts.
    mutating func add(id: Int, texts: [String], in db: Database) throws {
        ids.append(id)
        builder.add(id: id, fields: texts)
        if builder.count >= SearchRunStore.bulkRunSize { try writeRun(in: db) }
    }

    /// Adds the favorite `id` with its five texts' UTF-8 bytes (copied).
    mutating func add(id: Int, utf8Texts texts: [UnsafeRawBufferPointer], in db: Database) throws {
        ids.append(id)
        builder.add(id: id, utf8Fields: texts)
        if builder.count >= SearchRunStore.bulkRunSize { try writeRun(in: db) }
    }

    /// Writes the favorites added since the last run as a run, and merges the
    /// levels that are then full.
    mutating func finish(in db: Database) throws {
        if !wroteRun, ids.count < SearchRunStore.pendingLimit {
            builder = SearchRunBuilder()
            for id in ids { try SearchRunStore.addPending(id, in: db) }
            ids = []
            return
        }
        try writeRun(in: db)
    }

    private mutating func writeRun(in db: Database) throws {
        guard !builder.isEmpty else { return }
        let members = builder.count
        if let run = try SearchRunStore.write(builder.build(), members: members, in: db) { fresh.insert(run) }
        ids.removeAll(keepingCapacity: true)
        wroteRun = true
        try SearchRunStore.mergeCrowdedLevels(in: db, fresh: &fresh)
    }
}
