import SQLite

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
        try queue.write { db in
            var ledger = try SyncLedger.load(in: db, wallClock: wallClock)
            var batch: SearchRunBatch? = hasSearchIndex && changes.count >= SyncSession.batchThreshold ? SearchRunBatch() : nil
            var summary = ApplySummary()
            try SyncStore.apply(changes, in: db, ledger: &ledger, batch: &batch, hasSearchIndex: hasSearchIndex, summary: &summary)
            try batch?.finish(in: db)
            try ledger.save(in: db)
            return summary
        }
    }

    /// How many removals this database remembers (tombstones).
    public func tombstoneCount() throws -> Int {
        try queue.read { db in try db.fetchOne("SELECT count(*) FROM archive_tombstones") { try $0.int(at: 0) } ?? 0 }
    }
}
