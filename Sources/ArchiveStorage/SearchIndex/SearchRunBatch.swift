import ArchiveSearch
import SQLite
import ArchiveSyncModel

/// The search runs a bulk store builds as it stores favorites: a run per
/// ``SearchRunStore/bulkRunSize`` favorites, written and merged in the store's
/// transaction, so that no favorite waits for a run one at a time. A bulk store
/// of fewer than ``SearchRunStore/pendingLimit`` favorites makes no run of its
/// own: they wait, as favorites stored alone do.
///
/// A full builder is built on a thread of its own (``SearchRunBackgroundBuilder``)
/// while the store goes on with the next favorites; its run is written when the
/// next builder is full, or at ``finish(in:)``, in the order they were filled.
/// That thread also merges every ``SearchRunStore/bulkMergeFanIn`` runs it
/// builds, in memory, so the store writes one larger run where it would write
/// those runs, read them back and merge them through SQLite.
struct SearchRunBatch {
    /// ``SearchRunStore/bulkRunSize``, read once when the store starts (not per favorite).
    private let runSize: Int
    private var builder: SearchRunBuilder
    /// Made when the first builder is full: a store of one run builds it here.
    private var background: SearchRunBackgroundBuilder?
    /// The favorites added since the last run.
    private var ids: [Int] = []
    /// The runs this store wrote (their favorites are all stored).
    private var fresh = Set<Int64>()

    /// A batch for a bulk store starting now.
    init() {
        runSize = SearchRunStore.bulkRunSize
        builder = SearchRunBuilder(capacity: runSize)
    }

    /// Adds a favorite stored or changed by the bulk store, and hands the
    /// builder over when it is full.
    mutating func add(_ object: StoredArchiveObject, in db: Database) throws {
        try add(id: object.id, texts: [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction], in: db)
    }

    /// Adds the favorite `id` with its five texts.
    mutating func add(id: Int, texts: [String], in db: Database) throws {
        ids.append(id)
        builder.add(id: id, fields: texts)
        if builder.count >= runSize { try handOver(in: db) }
    }

    /// Adds the favorite `id` with its five texts' UTF-8 bytes (copied).
    mutating func add(id: Int, utf8Texts texts: [UnsafeRawBufferPointer], in db: Database) throws {
        ids.append(id)
        builder.add(id: id, utf8Fields: texts)
        if builder.count >= runSize { try handOver(in: db) }
    }

    /// Writes the favorites added since the last run as a run (after the run
    /// still being built, if any), and merges the levels that are then full.
    /// Fewer than ``SearchRunStore/pendingLimit`` favorites in all wait for a
    /// run instead, unless `waiting` is false (the favorites that were waiting
    /// are being indexed).
    mutating func finish(in db: Database, waiting: Bool = true) throws {
        guard let background else {
            if waiting, ids.count < SearchRunStore.pendingLimit {
                builder = SearchRunBuilder()
                for id in ids { try SearchRunStore.addPending(id, in: db) }
            } else {
                try write(members: builder.count, builder.build(), in: db)
            }
            ids = []
            return
        }
        if !builder.isEmpty { try handOver(in: db) }
        for built in background.finish() { try write(members: built.members, built.run, in: db) }
    }

    /// Hands the full builder over to be built, and writes the runs ready before
    /// it (the run built before, a merged run, or none while runs are held).
    private mutating func handOver(in db: Database) throws {
        let background = self.background
            ?? SearchRunBackgroundBuilder(capacity: runSize, mergingEvery: SearchRunStore.bulkMergeFanIn)
        self.background = background
        ids.removeAll(keepingCapacity: true)
        for built in background.exchange(&builder) { try write(members: built.members, built.run, in: db) }
    }

    private mutating func write(members: Int, _ run: SearchRun, in db: Database) throws {
        if let number = try SearchRunStore.write(run, members: members, in: db) { fresh.insert(number) }
        try SearchRunStore.mergeCrowdedLevels(in: db, fresh: &fresh)
    }
}
