import SQLite
public import ArchiveSyncModel

extension SQLiteStoredArchiveDataRepository {
    /// This database's device ID (the `deviceID` setting).
    public func deviceID() throws -> DeviceID {
        try queue.read(SyncStore.localDevice(in:))
    }

    /// The last seq this database gave a change (its feed's end).
    public func latestChangeSeq() throws -> Int64 {
        try queue.read(SyncStore.latestSeq(in:))
    }

    /// The changes this database made or received after `seq`, at most `limit`, in the
    /// order it recorded them: ask again after the page's `lastSeq` while `hasMore`.
    public func changes(since seq: Int64, limit: Int = 10_000) throws -> ChangeFeedPage {
        try queue.snapshot { db in try SyncStore.changes(since: seq, limit: limit, in: db) }
    }

    /// Applies received `changes` in one transaction, each by ``FavoriteMerge``, keeping
    /// the favorites search index in step; invalid changes are refused and counted.
    @discardableResult
    public func apply(_ changes: [FavoriteChange]) throws -> ApplySummary {
        try queue.write { db in try applying(changes, in: db).summary }
    }

    /// How far this database has read the change feed `feed` (another database's, or a
    /// sync service's): 0 for one never read.
    public func receivedCursor(from feed: FeedID) throws -> Int64 {
        try queue.read { db in try SyncStore.received(from: feed, in: db) }
    }

    /// Applies `changes` read from the change feed `feed`, each by ``FavoriteMerge``, and
    /// records `cursor` as how far this database has read that feed, in one transaction:
    /// a sync stopped at any point has applied a page and its cursor, or neither. Returns
    /// what the merge rule did, and the seqs this database gave the changes it applied
    /// (its feed's new end: what not to send back).
    public func apply(_ changes: [FavoriteChange], from feed: FeedID, through cursor: Int64) throws -> (summary: ApplySummary, seqs: ClosedRange<Int64>?) {
        try queue.write { db in
            let result = try applying(changes, in: db)
            try SyncStore.setReceived(cursor, from: feed, in: db)
            return result
        }
    }

    /// Applies `changes` inside the caller's write transaction; returns what the merge rule
    /// did and the seqs given to the changes applied.
    private func applying(_ changes: [FavoriteChange], in db: Database) throws -> (summary: ApplySummary, seqs: ClosedRange<Int64>?) {
        var ledger = try SyncLedger.load(in: db, wallClock: wallClock)
        let firstSeq = ledger.seq + 1
        var batch: SearchRunBatch? = hasSearchIndex && changes.count >= SyncSession.batchThreshold ? SearchRunBatch() : nil
        var summary = ApplySummary()
        try SyncStore.apply(changes, in: db, ledger: &ledger, batch: &batch, hasSearchIndex: hasSearchIndex, summary: &summary)
        try batch?.finish(in: db)
        try ledger.save(in: db)
        return (summary, ledger.seq >= firstSeq ? firstSeq...ledger.seq : nil)
    }

    /// How many of the changes after `seq` in this database's feed it made itself (not
    /// received): read through the feed's seq indexes.
    public func localChangeCount(since seq: Int64) throws -> Int {
        try queue.snapshot { db in
            try db.fetchOne("""
                SELECT (SELECT count(*) FROM archive_objects WHERE seq > ?1 AND device = ?2)
                     + (SELECT count(*) FROM archive_tombstones WHERE seq > ?1 AND device = ?2)
                """, seq, SyncLedger.localDeviceRef) { try $0.int(at: 0) } ?? 0
        }
    }

    /// How many removals this database remembers (tombstones).
    public func tombstoneCount() throws -> Int {
        try queue.read { db in try db.fetchOne("SELECT count(*) FROM archive_tombstones") { try $0.int(at: 0) } ?? 0 }
    }
}
