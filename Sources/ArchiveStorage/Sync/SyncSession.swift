package import SQLite
#if canImport(Glibc)
import Glibc
#endif
import ArchiveSyncModel

/// Two-way sync between two favorites databases (`archive sync PATH`): each gets the
/// changes the other made or received since they last met, applied by ``FavoriteMerge``,
/// so both end with the same favorites.
///
/// Each side is written in one transaction, which also records how far it read the other's
/// feed: a sync killed at any point leaves each side as it was or as it should be, and the
/// next sync completes it. A second sync with nothing new reads two empty feeds: its cost
/// follows the changes, not the favorites.
public enum SyncSession {
    /// From this many changes on, an apply indexes them in runs built in bulk (as an import
    /// does), instead of one by one through the index's waiting list.
    static let batchThreshold = 1_000

    /// What a sync moved, each way.
    public struct Summary: Sendable, Hashable {
        /// The other database's changes, as this one applied them.
        public var received = ApplySummary()
        /// This database's changes, as the other applied them.
        public var sent = ApplySummary()

        /// Nothing moved yet.
        public init() {}
    }

    /// Opens the database at `path` to sync with, with the front-door checks of any
    /// database (``ArchiveDatabase/checkDatabasePath(_:)``, a newer schema refused
    /// unchanged), and refuses one that cannot be written (a sync writes both):
    /// ``SyncError/readOnly(path:reason:)``. A missing file is created (a new, empty copy).
    /// It is opened as a file that is not trusted (``peerConfiguration``).
    /// `local`'s own files (by any name, its `-wal` and `-shm` included) are refused before
    /// anything is opened: ``SyncError/sameDatabase(path:other:)``.
    public static func openOther(_ path: String, besides local: ArchiveDatabase) throws -> ArchiveDatabase {
        try ArchiveDatabase.checkDatabasePath(path)
        if local.queue.path != ArchiveDatabase.inMemoryPath, DatabaseFiles(databasePath: local.queue.path).contains(path: path) {
            throw SyncError.sameDatabase(path: local.queue.path, other: path)
        }
        if access(path, F_OK) == 0 {
            guard access(path, W_OK) == 0 else { throw SyncError.readOnly(path: path, reason: String(cString: strerror(errno))) }
        }
        // SQLite writes its -wal and -shm beside the file.
        let folder = FilePathParts(path).directory
        guard access(folder, W_OK) == 0 else {
            throw SyncError.readOnly(path: path, reason: "its directory \(folder): \(String(cString: strerror(errno)))")
        }
        return try ArchiveDatabase(path: path, configuration: peerConfiguration)
    }

    /// How a peer file is opened: it may come from anyone (a USB stick), so its schema is
    /// not trusted (defensive mode, no side effects from its views and triggers, and none of
    /// either allowed: ``ArchiveStorageError/untrustedSchema(path:kind:name:)``) and each step
    /// of SQLite's work on it is bounded (about a billion instructions, a few seconds:
    /// ``SyncError/peerRunsAway(path:)`` past it).
    package static let peerConfiguration: Configuration = {
        var configuration = Configuration()
        configuration.trustsSchema = false
        configuration.workLimit = 1_000_000_000
        return configuration
    }()

    /// At most how many changes a sync reads ahead of a write: read with no lock of the
    /// database they go to held, then applied in one transaction of it, with how far the feed
    /// was read. A longer feed takes several such transactions, each resumable.
    static let stagingLimit = 50_000

    /// Syncs `local` with `other`, both ways. Throws ``SyncError/sameDatabase(path:other:)``
    /// when they are one file, ``SyncError/sameDevice(path:other:device:)`` when one is a
    /// byte copy of the other.
    @discardableResult
    public static func run(_ local: ArchiveDatabase, with other: ArchiveDatabase, pageLimit: Int = 10_000) throws -> Summary {
        let inMemory = local.queue.path == ArchiveDatabase.inMemoryPath || other.queue.path == ArchiveDatabase.inMemoryPath
        guard inMemory || !DatabaseFiles(databasePath: local.queue.path).contains(path: other.queue.path) else {
            throw SyncError.sameDatabase(path: local.queue.path, other: other.queue.path)
        }
        return try peerWork(other) {
            let localDevice = try local.favorites.deviceID()
            let otherDevice = try other.favorites.deviceID()
            guard localDevice != otherDevice else {
                throw SyncError.sameDevice(path: local.queue.path, other: other.queue.path, device: localDevice)
            }
            var summary = Summary()
            let pulled = try transfer(from: other.favorites, device: otherDevice, into: local.favorites, skipping: [], pageLimit: pageLimit, summary: &summary.received)
            let pushed = try transfer(from: local.favorites, device: localDevice, into: other.favorites, skipping: pulled, pageLimit: pageLimit, summary: &summary.sent)
            // What `other` just took from here sits at the end of its feed: if nothing else came
            // between what this side read and that, read past it now, so that the next sync does
            // not read this side's own changes back. (A sync stopped before this reads them back
            // once, as changes already held.)
            if let first = pushed.first, let last = pushed.last,
               zip(pushed, pushed.dropFirst()).allSatisfy({ $0.upperBound + 1 == $1.lowerBound }) {
                try local.queue.write { db in
                    if try SyncStore.received(from: FeedID(of: otherDevice), in: db) == first.lowerBound - 1 {
                        try SyncStore.setReceived(last.upperBound, from: FeedID(of: otherDevice), in: db)
                    }
                }
            }
            return summary
        }
    }

    /// One half of a sync: `local` takes `other`'s changes, `other` is only read (what a
    /// sync stopped after its first commit has done).
    package static func pull(into local: ArchiveDatabase, from other: ArchiveDatabase) throws -> ApplySummary {
        try peerWork(other) {
            var summary = ApplySummary()
            _ = try transfer(from: other.favorites, device: other.favorites.deviceID(), into: local.favorites, skipping: [], pageLimit: 10_000, summary: &summary)
            return summary
        }
    }

    /// Runs `work` on `peer`, saying a step of SQLite's work on it that ran past its bound
    /// (``peerConfiguration``) as ``SyncError/peerRunsAway(path:)``.
    private static func peerWork<Result>(_ peer: ArchiveDatabase, _ work: () throws -> Result) throws -> Result {
        do {
            return try work()
        } catch let error as SQLiteError where error.resultCode == .interrupt {
            throw SyncError.peerRunsAway(path: peer.queue.path)
        }
    }

    /// Applies `source`'s feed since `target` last read it, and records how far it read:
    /// at most ``stagingLimit`` changes are read from `source` (in its snapshot, holding no
    /// lock of `target`), then applied in one transaction of `target`'s with the cursor they
    /// reach, until the feed's end. Changes whose seq is in `skipping` (the ones `source`
    /// just received from `target`) are not sent back. Returns the seqs `target` gave the
    /// changes it applied.
    private static func transfer(
        from source: SQLiteStoredArchiveDataRepository, device: DeviceID, into target: SQLiteStoredArchiveDataRepository,
        skipping: [ClosedRange<Int64>], pageLimit: Int, summary: inout ApplySummary
    ) throws -> [ClosedRange<Int64>] {
        var cursor = try target.queue.read { db in try SyncStore.received(from: FeedID(of: device), in: db) }
        var given: [ClosedRange<Int64>] = []
        var first = true
        while true {
            var staged: [FavoriteChange] = []
            var reached = cursor
            var hasMore = true
            try source.queue.snapshot { sourceDB in
                // A cursor past the feed's end: the other file was replaced by an older copy
                // of itself, whose seqs will be given again. Read its whole feed.
                if first, reached > (try SyncStore.latestSeq(in: sourceDB)) { reached = 0 }
                while staged.count < stagingLimit {
                    let page = try SyncStore.changes(since: reached, limit: min(pageLimit, stagingLimit - staged.count), in: sourceDB)
                    staged += page.changes.lazy.filter { change in !skipping.contains { $0.contains(change.seq) } }.map(\.change)
                    reached = page.lastSeq
                    if !page.hasMore {
                        hasMore = false
                        break
                    }
                }
            }
            first = false
            // A change stamped too far ahead of this machine's clock refuses the whole sync
            // before anything is written: skipped, it would be lost to this side while a
            // device with another clock took it.
            let now = target.wallClock()
            for change in staged where change.stamp.time.lead(over: now) > HybridTimestamp.maximumLead {
                throw SyncError.stampAhead(path: source.queue.path, id: change.id, device: change.stamp.device, ahead: change.stamp.time.lead(over: now))
            }
            let seqs = try target.queue.write { db in
                var ledger = try SyncLedger.load(in: db, wallClock: target.wallClock)
                let firstSeq = ledger.seq + 1
                var batch: SearchRunBatch? = target.hasSearchIndex && (hasMore || staged.count >= batchThreshold) ? SearchRunBatch() : nil
                try SyncStore.apply(staged, in: db, ledger: &ledger, batch: &batch, hasSearchIndex: target.hasSearchIndex, summary: &summary)
                try batch?.finish(in: db)
                try SyncStore.setReceived(reached, from: FeedID(of: device), in: db)
                try ledger.save(in: db)
                return ledger.seq >= firstSeq ? firstSeq...ledger.seq : nil
            }
            if let seqs { given.append(seqs) }
            cursor = reached
            if !hasMore { return given }
        }
    }
}
