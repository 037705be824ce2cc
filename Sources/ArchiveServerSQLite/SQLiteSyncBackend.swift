public import ArchiveServerStorage
public import ArchiveSyncWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOPosix
import SQLite
public import ArchiveSyncModel

/// The service on its embedded SQLite database (``ServerDatabase``), the default. Each
/// call runs on SwiftNIO's blocking-work thread pool, never on an event loop; SQLite's one
/// writer serializes the pushes, so two pushes for one user never interleave.
public struct SQLiteSyncBackend: SyncBackend {
    let database: ServerDatabase
    let users: UserStore
    /// Unix milliseconds now (devices' `last_seen`).
    let wallClock: @Sendable () -> Int64

    /// The service on `database`.
    public init(database: ServerDatabase) {
        self.init(database: database, wallClock: WallClock.system)
    }

    /// The service on `database`, its devices' `last_seen` read from `wallClock` (Unix milliseconds).
    package init(database: ServerDatabase, wallClock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.users = UserStore(database: database)
        self.wallClock = wallClock
    }

    public func authenticate(_ token: AccessToken) async throws -> AuthenticatedUser? {
        let now = wallClock()
        return try await NIOThreadPool.singleton.runIfActive { try users.authenticate(token, now: now) }
    }

    public func stillValid(_ identities: Set<StreamIdentity>) async throws -> Set<StreamIdentity> {
        let now = wallClock()
        return try await run("checking the open streams' devices") { try users.stillValid(identities, now: now) }
    }

    public func isHealthy() async -> Bool {
        (try? await NIOThreadPool.singleton.runIfActive { database.isHealthy() }) ?? false
    }

    public func push(_ changes: [FavoriteChange], from device: DeviceID, through: Int64, seen: Int64, for user: AuthenticatedUser) async throws -> SyncPushResponse {
        let now = wallClock()
        return try await run("applying a push of \(user.name)") {
            try database.queue.write { db in
                var (seq, collected) = try Self.userState(user, in: db)
                try UserStore.admit(device, for: user, in: db)
                guard seen >= collected else { throw ServerStorageError.stalePush(seen: seen, collected: collected) }
                var summary = SyncPushResponse(applied: 0, superseded: 0, alreadyHeld: 0, pushed: 0)
                for change in changes {
                    let current = try Self.current(change.id, of: user, in: db)
                    if FavoriteMerge.replaces(change, current) {
                        seq += 1
                        try Self.write(change, seq: seq, for: user, in: db)
                        summary.applied += 1
                    } else if current == change {
                        summary.alreadyHeld += 1
                    } else {
                        summary.superseded += 1
                    }
                }
                try db.execute("UPDATE users SET seq = ? WHERE id = ?", seq, user.id)
                try db.execute("""
                    INSERT INTO user_devices (user, device, pushed, pulled, last_seen, token) VALUES (?, ?, ?, 0, ?, ?)
                    ON CONFLICT (user, device) DO UPDATE SET pushed = max(pushed, excluded.pushed), last_seen = excluded.last_seen, token = excluded.token
                    """, user.id, device.bytes, through, now, user.token)
                summary.pushed = try Self.pushed(by: device, of: user, in: db)
                return summary
            }
        }
    }

    public func pull(for user: AuthenticatedUser, device: DeviceID, after cursor: Int64, limit: Int) async throws -> SyncPullResponse {
        let now = wallClock()
        return try await run("reading a pull of \(user.name)") {
            try database.queue.write { db in
                let (latest, collected) = try Self.userState(user, in: db)
                try UserStore.admit(device, for: user, in: db)
                // A device the service knows has pulled at least to `collected` (removals go only
                // once every known device has pulled them): a cursor before it is a device
                // forgotten since (revoked), or a file restored from an old copy. It may hold
                // favorites whose removal it never learned; syncing it would bring them back.
                guard cursor <= 0 || cursor >= collected else { throw ServerStorageError.forgottenDevice(cursor: cursor, collected: collected) }
                // A cursor past the feed's end: this database was restored from an older copy
                // (its seqs will be given again). Read the feed from its start.
                let reset = cursor > latest
                let start = reset ? 0 : cursor
                var changes = try db.fetchAll("""
                    SELECT id, stamp, device, removed, photo_url, category, dish_name, shop_name, introduction, stored_at, seq
                    FROM user_favorites WHERE user = ? AND seq > ? ORDER BY seq LIMIT ?
                    """, user.id, start, limit + 1) { row in (try Self.change(from: row), try row.int64(at: 10)) }
                let hasMore = WireSize.cutPage(&changes, limit: limit) { $0.0 }
                // A page that reaches the end reaches the user's latest seq (the seqs between
                // were superseded or dropped).
                let next = hasMore ? changes.last?.1 ?? start : max(latest, start)
                // What the device has pulled is what it says it applied: the cursor it asks from.
                // Not what this answer sends, which may be lost on the way (a dropped
                // connection, the device's disk full): a tombstone it never applied must stay.
                // A pull of no changes (`limit=0`, the feed's name and `pushed` only) registers
                // no device: every registered device holds later tombstones back until it pulls.
                if limit > 0 {
                    try db.execute("""
                        INSERT INTO user_devices (user, device, pushed, pulled, last_seen, token) VALUES (?1, ?2, 0, ?3, ?4, ?5)
                        ON CONFLICT (user, device) DO UPDATE SET pulled = max(pulled, excluded.pulled), last_seen = excluded.last_seen, token = excluded.token
                        """, user.id, device.bytes, reset ? 0 : cursor, now, user.token)
                }
                if limit > 0, !hasMore {
                    // Every device of the user has now applied these tombstones: they go, and a
                    // push made before pulling that far is refused from now on.
                    let everyone = try db.fetchOne("SELECT min(pulled) FROM user_devices WHERE user = ?", user.id) { try $0.int64(at: 0) } ?? 0
                    try db.execute("DELETE FROM user_favorites WHERE user = ? AND removed = 1 AND seq <= ?", user.id, everyone)
                    if db.changes > 0 { try db.execute("UPDATE users SET collected = max(collected, ?) WHERE id = ?", everyone, user.id) }
                }
                return SyncPullResponse(
                    feed: user.feed.description, changes: changes.map { WireChange($0.0) }, cursor: next,
                    hasMore: hasMore, reset: reset, pushed: try Self.pushed(by: device, of: user, in: db), end: latest)
            }
        }
    }

    /// Runs `work` on the blocking-work pool; a full disk is said as
    /// ``ServerStorageError/storageFull(_:)``, a database locked by another process past
    /// SQLite's busy timeout, or an I/O error of the disk, as
    /// ``ServerStorageError/unavailable(_:)`` (the transaction rolled back in every case:
    /// nothing was acknowledged; one whose commit met the I/O error may still be on disk,
    /// and the client's retry of it is merged as changes already held).
    func run<Result: Sendable>(_ what: String, _ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        do {
            return try await NIOThreadPool.singleton.runIfActive(work)
        } catch let error as SQLiteError where ResultCode.full ~= error.resultCode {
            throw ServerStorageError.storageFull("\(database.path) while \(what) (\(error.message))")
        } catch let error as SQLiteError where ResultCode.busy ~= error.resultCode || ResultCode.locked ~= error.resultCode {
            throw ServerStorageError.unavailable("\(database.path) is locked by another process while \(what) (\(error.message))")
        } catch let error as SQLiteError where ResultCode.ioError ~= error.resultCode {
            throw ServerStorageError.unavailable("\(database.path) met an I/O error while \(what) (\(error.message))")
        }
    }

    // MARK: - Rows

    /// The user's last seq and the seq up to which its tombstones were dropped.
    private static func userState(_ user: AuthenticatedUser, in db: Database) throws -> (seq: Int64, collected: Int64) {
        // The user may have been removed since the token was checked: then nothing is read or
        // written. A user added since may have taken the removed one's row ID (SQLite reuses
        // the largest): the feed, random to each user, tells them apart.
        guard let state = try db.fetchOne(
            "SELECT seq, collected FROM users WHERE id = ? AND feed = ?", user.id, user.feed.bytes, row: { (try $0.int64(at: 0), try $0.int64(at: 1)) }
        ) else {
            throw ServerStorageError.noSuchUser(user.name)
        }
        return state
    }

    private static func pushed(by device: DeviceID, of user: AuthenticatedUser, in db: Database) throws -> Int64 {
        try db.fetchOne("SELECT pushed FROM user_devices WHERE user = ? AND device = ?", user.id, device.bytes) { try $0.int64(at: 0) } ?? 0
    }

    private static func current(_ id: Int, of user: AuthenticatedUser, in db: Database) throws -> FavoriteChange? {
        try db.fetchOne("""
            SELECT id, stamp, device, removed, photo_url, category, dish_name, shop_name, introduction, stored_at
            FROM user_favorites WHERE user = ? AND id = ?
            """, user.id, id, row: change(from:))
    }

    private static func write(_ change: FavoriteChange, seq: Int64, for user: AuthenticatedUser, in db: Database) throws {
        let sql = """
            INSERT OR REPLACE INTO user_favorites
                (user, id, stamp, device, seq, removed, photo_url, category, dish_name, shop_name, introduction, stored_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        let stamp = change.stamp
        switch change.state {
        case .stored(let object):
            try db.execute(sql, user.id, change.id, stamp.time.rawValue, stamp.device.bytes, seq, 0, object.photoUrl,
                           object.category, object.dishName, object.shopName, object.introduction, object.storedAtMilliseconds)
        case .removed:
            try db.execute(sql, user.id, change.id, stamp.time.rawValue, stamp.device.bytes, seq, 1,
                           String?.none, String?.none, String?.none, String?.none, String?.none, Int64?.none)
        }
    }

    /// The change a row of `user_favorites` holds (columns: id, stamp, device, removed, the
    /// five fields, stored_at).
    static func change(from row: Statement) throws -> FavoriteChange {
        let id = try row.int(at: 0)
        guard let device = DeviceID(bytes: row.withBlob(at: 2) { Array($0) }) else {
            throw ServerStorageError.damagedRow("favorite \(id) has a device ID that is not 16 bytes")
        }
        let stamp = ChangeStamp(time: HybridTimestamp(rawValue: try row.int64(at: 1)), device: device)
        guard try row.int(at: 3) == 0 else { return FavoriteChange(id: id, stamp: stamp, state: .removed) }
        let object = StoredArchiveObject(
            id: id, photoUrl: try row.column(String.self, at: 4), category: try row.column(String.self, at: 5),
            dishName: try row.column(String.self, at: 6), shopName: try row.column(String.self, at: 7),
            introduction: try row.column(String.self, at: 8), storedAtMilliseconds: try row.int64(at: 9))
        return FavoriteChange(id: id, stamp: stamp, state: .stored(object))
    }
}
