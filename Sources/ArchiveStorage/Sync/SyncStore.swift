package import SQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import ArchiveSyncModel

/// The sync tables of migration 0006, read and written inside the caller's transaction:
/// tombstones, devices, the change feed, the application of received changes (through
/// ``FavoriteMerge``), and how far each other database's feed has been read.
package enum SyncStore {
    /// Records a removal: `(id, stamp, device, seq)`.
    package static let tombstoneUpsertSQL = """
        INSERT INTO archive_tombstones (id, stamp, device, seq) VALUES (?1, ?2, ?3, ?4)
        ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp, device = excluded.device, seq = excluded.seq
        """
    /// Forgets a removal: the favorite is stored again.
    package static let tombstoneDeleteSQL = "DELETE FROM archive_tombstones WHERE id = ?"

    /// The feed after `?1`, at most `?2` changes, in seq order: stored favorites and
    /// tombstones, each through its seq index.
    static let feedSQL = """
        SELECT o.seq, o.id, o.stamp, d.device, o.photo_url, o.category, o.dish_name, o.shop_name, o.introduction, o.stored_at
        FROM archive_objects AS o JOIN sync_devices AS d ON d.ref = o.device WHERE o.seq > ?1
        UNION ALL
        SELECT t.seq, t.id, t.stamp, d.device, NULL, NULL, NULL, NULL, NULL, NULL
        FROM archive_tombstones AS t JOIN sync_devices AS d ON d.ref = t.device WHERE t.seq > ?1
        ORDER BY 1 LIMIT ?2
        """
    static let insertReceivedSQL = """
        INSERT INTO archive_objects (id, photo_url, category, dish_name, shop_name, introduction, stored_at, stamp, device, seq)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        """
    static let restampSQL = "UPDATE archive_objects SET stamp = ?2, device = ?3, seq = ?4 WHERE id = ?1"
    static let updateReceivedSQL = """
        UPDATE archive_objects SET photo_url = ?2, category = ?3, dish_name = ?4, shop_name = ?5, introduction = ?6,
            stored_at = ?7, stamp = ?8, device = ?9, seq = ?10
        WHERE id = ?1
        """

    // MARK: - Devices

    /// This database's own device ID.
    package static func localDevice(in db: Database) throws -> DeviceID {
        let bytes = try db.fetchOne("SELECT device FROM sync_devices WHERE ref = ?", SyncLedger.localDeviceRef) { row in
            try row.column([UInt8].self, at: 0)
        }
        guard let bytes, let device = DeviceID(bytes: bytes) else { throw SyncError.stateMissing(path: db.path) }
        return device
    }

    /// Every device this database has heard of, by its `sync_devices` number.
    static func devices(in db: Database) throws -> [Int64: DeviceID] {
        var devices: [Int64: DeviceID] = [:]
        for (ref, bytes) in try db.fetchAll("SELECT ref, device FROM sync_devices", row: { row in
            (try row.int64(at: 0), try row.column([UInt8].self, at: 1))
        }) {
            if let device = DeviceID(bytes: bytes) { devices[ref] = device }
        }
        return devices
    }

    // MARK: - The feed

    /// The last seq this database gave a change.
    package static func latestSeq(in db: Database) throws -> Int64 {
        try db.fetchOne("SELECT seq FROM sync_state WHERE one = 1") { try $0.int64(at: 0) } ?? 0
    }

    /// The changes after `seq`, at most `limit`, each with its seq.
    package static func changes(since seq: Int64, limit: Int, in db: Database) throws -> ChangeFeedPage {
        guard (1...ChangeFeedPage.maximumLimit).contains(limit) else { throw SyncError.invalidPageLimit(limit) }
        let statement = try db.cachedStatement(feedSQL)
        defer { statement.reset() }
        try statement.bind(seq, at: 1)
        try statement.bind(limit + 1, at: 2)
        var changes: [(seq: Int64, change: FavoriteChange)] = []
        changes.reserveCapacity(min(limit, 4_096))
        var hasMore = false
        while try statement.step() {
            guard changes.count < limit else {
                hasMore = true
                break
            }
            let rowSeq = try statement.int64(at: 0)
            let id = try statement.int(at: 1)
            let time = HybridTimestamp(rawValue: try statement.int64(at: 2))
            let deviceBytes = try statement.column([UInt8].self, at: 3)
            guard let device = DeviceID(bytes: deviceBytes) else {
                throw SyncError.damagedRow(path: db.path, id: id, reason: "its device ID is \(deviceBytes.count) bytes, not 16")
            }
            let state: FavoriteChange.State
            if statement.isNull(at: 4) {
                state = .removed
            } else {
                state = .stored(StoredArchiveObject(
                    id: id, photoUrl: try statement.column(String.self, at: 4), category: try statement.column(String.self, at: 5),
                    dishName: try statement.column(String.self, at: 6), shopName: try statement.column(String.self, at: 7),
                    introduction: try statement.column(String.self, at: 8),
                    storedAt: Date(millisecondsSince1970: try statement.int64(at: 9))))
            }
            changes.append((rowSeq, FavoriteChange(id: id, stamp: ChangeStamp(time: time, device: device), state: state)))
        }
        return ChangeFeedPage(changes: changes, lastSeq: changes.last?.seq ?? seq, hasMore: hasMore)
    }

    // MARK: - Applying received changes

    /// The state this database holds for favorite `id`: its row, its tombstone, or nothing.
    static func current(id: Int, in db: Database, devices: [Int64: DeviceID]) throws -> FavoriteChange? {
        let row = try db.cachedStatement("""
            SELECT stamp, device, photo_url, category, dish_name, shop_name, introduction, stored_at FROM archive_objects WHERE id = ?
            """)
        defer { row.reset() }
        try row.bind(id, at: 1)
        if try row.step() {
            let stamp = ChangeStamp(time: HybridTimestamp(rawValue: try row.int64(at: 0)), device: try device(try row.int64(at: 1), devices, db))
            let object = StoredArchiveObject(
                id: id, photoUrl: try row.column(String.self, at: 2), category: try row.column(String.self, at: 3),
                dishName: try row.column(String.self, at: 4), shopName: try row.column(String.self, at: 5),
                introduction: try row.column(String.self, at: 6), storedAt: Date(millisecondsSince1970: try row.int64(at: 7)))
            return FavoriteChange(id: id, stamp: stamp, state: .stored(object))
        }
        let tombstone = try db.cachedStatement("SELECT stamp, device FROM archive_tombstones WHERE id = ?")
        defer { tombstone.reset() }
        try tombstone.bind(id, at: 1)
        guard try tombstone.step() else { return nil }
        let stamp = ChangeStamp(time: HybridTimestamp(rawValue: try tombstone.int64(at: 0)), device: try device(try tombstone.int64(at: 1), devices, db))
        return FavoriteChange(id: id, stamp: stamp, state: .removed)
    }

    private static func device(_ ref: Int64, _ devices: [Int64: DeviceID], _ db: Database) throws -> DeviceID {
        guard let device = devices[ref] else { throw SyncError.stateMissing(path: db.path) }
        return device
    }

    /// Why `change` cannot be applied, or `nil` when it can: the sync core's one check
    /// (``FavoriteChange/check()``), which every side runs, so every database and the
    /// service refuse the same changes.
    package static func refusal(of change: FavoriteChange) -> String? {
        do {
            try change.check()
            return nil
        } catch {
            return error.description
        }
    }

    /// Applies `changes` inside the caller's write transaction, each by ``FavoriteMerge``,
    /// keeping the search index in step (a `batch` of runs when given, else the waiting
    /// list). Every valid change moves the clock (`ledger`), applied or not.
    static func apply(
        _ changes: some Sequence<FavoriteChange>, in db: Database, ledger: inout SyncLedger,
        batch: inout SearchRunBatch?, hasSearchIndex: Bool, summary: inout ApplySummary
    ) throws {
        var devices = try self.devices(in: db)
        var refs = Dictionary(uniqueKeysWithValues: devices.map { ($0.value, $0.key) })
        for change in changes {
            if let reason = refusal(of: change) {
                summary.refused += 1
                if summary.firstRefusal == nil { summary.firstRefusal = reason }
                continue
            }
            ledger.observe(change.stamp.time)
            let held = try HeldFavorite.read(for: change, in: db, devices: devices)
            if let held {
                let replaces = try FavoriteMerge.replaces(change, heldStamp: held.stamp) {
                    try self.current(id: change.id, in: db, devices: devices)?.state ?? .removed
                }
                guard replaces else {
                    if held.stamp == change.stamp { summary.alreadyHeld += 1 } else { summary.superseded += 1 }
                    continue
                }
            }
            let ref: Int64
            if let known = refs[change.stamp.device] {
                ref = known
            } else {
                try db.execute("INSERT INTO sync_devices (device) VALUES (?)", change.stamp.device.bytes)
                ref = db.lastInsertedRowID
                refs[change.stamp.device] = ref
                devices[ref] = change.stamp.device
            }
            let seq = ledger.nextSeq()
            switch change.state {
            case .stored(let object):
                if let held, held.isStored, held.sameTexts, held.sameStoredAt {
                    // The same favorite under a greater stamp (hearted on two devices, passed
                    // on by a third): only its stamp and seq move, so neither its texts nor
                    // the stored_at index are written again, nor the search index.
                    let statement = try db.cachedStatement(restampSQL)
                    defer { statement.reset() }
                    try statement.bind(change.id, at: 1)
                    try statement.bind(change.stamp.time.rawValue, at: 2)
                    try statement.bind(ref, at: 3)
                    try statement.bind(seq, at: 4)
                    try statement.run()
                    break
                }
                let statement = try db.cachedStatement(held?.isStored == true ? updateReceivedSQL : insertReceivedSQL)
                defer { statement.reset() }
                try SQLiteStoredArchiveDataRepository.bind(object, to: statement)
                try statement.bind(change.stamp.time.rawValue, at: 8)
                try statement.bind(ref, at: 9)
                try statement.bind(seq, at: 10)
                try statement.run()
                if held?.isStored == false { try db.execute(tombstoneDeleteSQL, change.id) }
                if hasSearchIndex, held?.sameTexts != true {
                    if batch != nil {
                        try batch?.add(object, in: db)
                    } else {
                        try SearchRunStore.addPending(object.id, in: db)
                    }
                }
            case .removed:
                if held?.isStored == true {
                    if hasSearchIndex { try SearchRunStore.removePending(change.id, in: db) }
                    try db.execute("DELETE FROM archive_objects WHERE id = ?", change.id)
                }
                try db.execute(tombstoneUpsertSQL, change.id, change.stamp.time.rawValue, ref, seq)
            }
            summary.applied += 1
        }
    }

    // MARK: - Checks

    /// What `check` reports of the sync tables: a favorite both stored and removed, changes
    /// no feed can give (written by another program, without a seq), seqs past the one the
    /// database last gave, a missing clock.
    static func problems(in db: Database) throws -> [String] {
        guard let latest = try db.fetchOne("SELECT seq FROM sync_state WHERE one = 1", row: { try $0.int64(at: 0) }) else {
            return ["the sync state (table sync_state) has lost its row: restore the file from a backup"]
        }
        var problems: [String] = []
        problems += try db.fetchAll(
            "SELECT o.id FROM archive_objects AS o JOIN archive_tombstones AS t ON t.id = o.id ORDER BY o.id LIMIT 20"
        ) { row in "favorite \(try row.int(at: 0)) is both stored and removed (archive_tombstones): another program wrote one of them; remove it and store it again" }
        let unfed = try db.fetchOne("SELECT count(*) FROM archive_objects WHERE seq <= 0") { try $0.int(at: 0) } ?? 0
        if unfed > 0 {
            problems.append("\(unfed) favorite(s) have no place in the change feed (seq 0: another program inserted them), so no sync sends them: run `archive reindex`, which stamps them")
        }
        let ahead = try db.fetchOne(
            "SELECT max(seq) FROM (SELECT max(seq) AS seq FROM archive_objects UNION ALL SELECT max(seq) FROM archive_tombstones)"
        ) { $0.isNull(at: 0) ? 0 : try $0.int64(at: 0) } ?? 0
        if ahead > latest {
            problems.append("the change feed reaches seq \(ahead), past the \(latest) the sync state records (another program wrote it): the next changes would reuse seqs a peer has read")
        }
        return problems
    }

    // MARK: - Cursors

    /// The last seq of `feed` this database applied (0: none).
    package static func received(from feed: FeedID, in db: Database) throws -> Int64 {
        try db.fetchOne("SELECT received FROM sync_peers WHERE device = ?", feed.bytes) { try $0.int64(at: 0) } ?? 0
    }

    /// Records that `feed` was applied up to `seq` (the table's `device` column names the
    /// feed: a peer database's own, named after its device, or a service's).
    package static func setReceived(_ seq: Int64, from feed: FeedID, in db: Database) throws {
        try db.execute("""
            INSERT INTO sync_peers (device, received) VALUES (?1, ?2)
            ON CONFLICT (device) DO UPDATE SET received = excluded.received
            """, feed.bytes, seq)
    }
}
