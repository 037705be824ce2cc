public import ArchiveServerStorage
public import ArchiveSyncWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Logging
package import PostgresNIO
package import Synchronization
public import ArchiveSyncModel

/// The service on PostgreSQL (`archive-server --postgres URL`): the sync API's storage and
/// the users, through a pool of connections (`PostgresClient`).
///
/// The merge rule runs in PostgreSQL: a push is one `INSERT … ON CONFLICT … DO UPDATE …
/// WHERE` over the whole batch, whose `WHERE` is ``FavoriteMerge``'s order (stamp, then
/// device bytes, then on a tie removed before stored and the fields in byte order). Each
/// push and each tombstone collection first locks its user's row (`SELECT … FOR UPDATE`),
/// so one user's take turns, while different users' run in parallel; the seqs a user's feed
/// hands out therefore commit in order. A device whose own token is bound to it is answered
/// in one statement a push or pull (`PostgresSyncStorage+OneStatement.swift`); any other
/// request in a transaction that decides step by step.
///
/// ``run()`` must be running (it runs the pool) while the storage is used.
public final class PostgresSyncStorage: SyncBackend, UserDirectory {
    /// Where the database is (its URL, without the password).
    public let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    /// Unix milliseconds now (devices' `last_seen`).
    let wallClock: @Sendable () -> Int64
    /// The pool's most connections, each a descriptor (``SyncBackend/descriptorsKept``).
    public let descriptorsKept: Int
    /// How many pushes and pulls one statement answered (the rest took the transaction that
    /// decides step by step): the tests' way to see that the common case takes it.
    package let oneStatementAnswers = Atomic<Int>(0)
    /// Where the feed broadcast listens (``listen(_:)``): the storage's own location, or a
    /// direct one when the storage's goes through a pooler that cannot hold a `LISTEN`.
    let eventsLocation: PostgresLocation
    /// This process's name in the announcements, so that it skips its own.
    let instance = Hex.encode((0..<8).map { _ in UInt8.random(in: .min ... .max) })
    /// The users whose moves wait to be announced, and whether a flush is under way.
    let announcements = Mutex(Announcements())

    /// Storage on the PostgreSQL at `location`, with at most `maximumConnections` connections;
    /// devices' `last_seen` read from `wallClock` (Unix milliseconds; the system's clock by default).
    /// `eventsLocation` (default `location`) is where the feed broadcast holds its `LISTEN`.
    public init(
        location: PostgresLocation, eventsLocation: PostgresLocation? = nil, maximumConnections: Int = 20, logger: Logger,
        wallClock: (@Sendable () -> Int64)? = nil
    ) {
        var configuration = location.configuration
        configuration.options.maximumConnections = maximumConnections
        // No startup parameter beyond PostgreSQL's own: a pooler in front (PgBouncer) closes a
        // connection that sends one it does not know. That commits are flushed is checked
        // at start instead (``migrate()``).
        self.location = location
        self.eventsLocation = eventsLocation ?? location
        // The pool's connections and the broadcast's own.
        self.descriptorsKept = maximumConnections + 1
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        self.wallClock = wallClock ?? WallClock.system
    }

    /// The value of the server setting `name` (`SHOW`), or `nil` when it answers none.
    private static func setting(_ name: String, on connection: PostgresConnection, logger: Logger) async throws -> String? {
        var value: String?
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: "SHOW \(name)"), logger: logger).decode(String.self) {
            value = row
        }
        return value
    }

    /// Runs the pool until the task is cancelled.
    public func run() async {
        await client.run()
    }

    /// Connects once on a connection of its own (so that an unreachable PostgreSQL, a
    /// wrong password or a missing database is said at once), then applies the missing
    /// migrations (``PostgresMigrations``), again if PostgreSQL goes out of reach meanwhile
    /// (for at most ``migrationRetryLimit``).
    public func migrate() async throws {
        do {
            let connection = try await PostgresConnection.connect(configuration: location.connectionConfiguration, id: 0, logger: logger)
            // With fsync off, PostgreSQL's commits survive no power cut, whatever this server does.
            // (A server that will not say, a pooler in front, is not refused for it.)
            if let fsync = try? await Self.setting("fsync", on: connection, logger: logger), fsync != "on" {
                logger.warning("PostgreSQL at \(location) runs with fsync=\(fsync): a push answered 200 may be lost on a power cut; turn fsync on in postgresql.conf")
            }
            // A push is answered 200 once its COMMIT returns, which with synchronous_commit=off
            // is before its WAL is flushed: refused at start (docs/ARCHITECTURE.md, "Durability").
            let commit = try await Self.setting("synchronous_commit", on: connection, logger: logger)
            try await connection.close()
            if commit == "off" { throw PostgresStorageError.commitsNotFlushed(location: location.description, user: location.connectionConfiguration.username) }
        } catch let error as PostgresStorageError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let failure = PostgresConnectFailure(error, connecting: location.connectionConfiguration)
            throw PostgresStorageError.cannotConnect(location: location.description, reason: failure.reason, advice: failure.advice)
        }
        // PostgreSQL answered a moment ago: a connection lost now (a balancer taking a node
        // out, a failover, a pooler restarting) is tried again, the migrations being one
        // transaction, rather than ending a start that systemd or a rolling restart began.
        var wait = Duration.milliseconds(250)
        let giveUp = ContinuousClock.now + Self.migrationRetryLimit
        while true {
            do {
                try await PostgresMigrations.migrate(client, location: location.description, logger: logger)
                return
            } catch ServerStorageError.unavailable(let reason) where ContinuousClock.now + wait < giveUp {
                logger.warning("\(reason); migrating again in \(wait)")
                try await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(2))
            }
        }
    }

    /// How long ``migrate()`` keeps trying again after PostgreSQL, reached once, went out of
    /// reach while migrating (after that, the start fails with what it said last).
    static let migrationRetryLimit = Duration.seconds(30)

    /// Runs `body` with storage on `location` (at most `maximumConnections` connections),
    /// its pool running and its schema migrated; the pool stops when `body` returns.
    public static func with<Result: Sendable>(
        _ location: PostgresLocation, maximumConnections: Int = 2, logger: Logger, _ body: (PostgresSyncStorage) async throws -> Result
    ) async throws -> Result {
        let storage = PostgresSyncStorage(location: location, maximumConnections: maximumConnections, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await storage.run() }
            defer { group.cancelAll() }
            try await storage.migrate()
            return try await body(storage)
        }
    }

    // MARK: - SyncBackend

    public func authenticate(_ token: AccessToken) async throws -> AuthenticatedUser? {
        let hash = token.hash, now = wallClock()
        do {
            let rows = try await client.query(Self.authenticateStatement(hash: hash, now: now), logger: logger)
            for try await (id, name, feed, stored, tokenID, label, bound, session) in rows.decode((Int64, String, String, String, Int64, String, String?, Bool).self) {
                guard AccessToken.constantTimeEqual(Hex.decode(stored) ?? [], hash), let feed = FeedID(hex: feed) else { return nil }
                return AuthenticatedUser(id: id, name: name, feed: feed, token: tokenID, device: label, boundDevice: bound.flatMap(DeviceID.init(hex:)), isBrowserSession: session)
            }
            return nil
        } catch {
            throw PostgresStorageError.wrapping(error, while: "checking a token")
        }
    }

    /// The token check: the token whose hash is `hash`, unexpired at `now`, with its user.
    /// (`Benchmarks/load/push.sql` and `pull.sql` run it as written here: `LoadStatementTests`.)
    package static func authenticateStatement(hash: [UInt8], now: Int64) -> PostgresQuery {
        """
        SELECT u.id, u.name, encode(u.feed, 'hex'), encode(t.token_hash, 'hex'), t.id, t.label, encode(t.device, 'hex'), t.expires_at IS NOT NULL
        FROM device_tokens t JOIN users u ON u.id = t.user_id
        WHERE t.token_hash = decode(\(Hex.encode(hash)), 'hex') AND (t.expires_at IS NULL OR t.expires_at > \(now))
        """
    }

    public func stillValid(_ identities: Set<StreamIdentity>) async throws -> Set<StreamIdentity> {
        guard !identities.isEmpty else { return [] }
        let ids = identities.map(\.token), now = wallClock()
        do {
            let rows = try await client.query("""
                SELECT t.id, t.user_id, encode(u.feed, 'hex') FROM device_tokens t JOIN users u ON u.id = t.user_id
                WHERE t.id = ANY(\(ids)) AND (t.expires_at IS NULL OR t.expires_at > \(now))
                """, logger: logger)
            var valid: Set<StreamIdentity> = []
            for try await (token, user, feed) in rows.decode((Int64, Int64, String).self) {
                guard let feed = FeedID(hex: feed) else { continue }
                valid.insert(StreamIdentity(token: token, user: user, feed: feed))
            }
            return identities.intersection(valid)
        } catch {
            throw PostgresStorageError.wrapping(error, while: "checking the open streams' devices")
        }
    }

    /// Whether PostgreSQL answers `SELECT 1` within five seconds (a pool that cannot reach
    /// it would otherwise keep the health check waiting for a connection).
    public func isHealthy() async -> Bool {
        let client = self.client, logger = self.logger
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await client.query("SELECT 1", logger: logger).collect()) != nil }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return false
            }
            let answered = await group.next() ?? false
            group.cancelAll()
            return answered
        }
    }

    public func push(_ changes: [FavoriteChange], from device: DeviceID, through: Int64, seen: Int64, for user: AuthenticatedUser) async throws -> SyncPushResponse {
        let now = wallClock()
        // A push by a device's own token, bound to it, in one statement; any other (a first
        // sync that binds, a shared token, a stale or refused push) in a transaction that
        // decides step by step (docs/PERFORMANCE.md, "One statement a request").
        if let answer = try await pushInOneStatement(changes, from: device, through: through, seen: seen, now: now, for: user) {
            return answer
        }
        return try await PostgresTransaction.run(client, while: "applying a push of \(user.name)", logger: logger) { connection in
            let (seq, collected) = try await Self.lockUser(user, on: connection, logger: logger)
            try await Self.admit(device, for: user, on: connection, logger: logger)
            guard seen >= collected else { throw ServerStorageError.stalePush(seen: seen, collected: collected) }
            // One statement merges the batch, moves the feed's end and records the device.
            let (applied, pushed) = try await Self.merge(
                changes, after: seq, from: device, through: through, now: now, for: user, on: connection, logger: logger)
            var summary = SyncPushResponse(applied: applied.count, superseded: 0, alreadyHeld: 0, pushed: pushed)
            let others = changes.filter { !applied.contains($0.id) }
            if !others.isEmpty {
                let held = try await Self.current(others.map(\.id), of: user, on: connection, logger: logger)
                for change in others {
                    if held[change.id] == change { summary.alreadyHeld += 1 } else { summary.superseded += 1 }
                }
            }
            return summary
        }
    }

    public func pull(for user: AuthenticatedUser, device: DeviceID, after cursor: Int64, limit: Int) async throws -> SyncPullResponse {
        let now = wallClock()
        // As a push: a device's own token, bound to it, in one statement; any other in a transaction.
        if let answer = try await pullInOneStatement(for: user, device: device, after: cursor, limit: limit, now: now) {
            return answer
        }
        return try await PostgresTransaction.run(client, while: "reading a pull of \(user.name)", logger: logger) { connection in
            let (latest, collected) = try await Self.lockUser(user, on: connection, logger: logger)
            try await Self.admit(device, for: user, on: connection, logger: logger)
            // A device that last synced before removals were dropped (see SQLiteSyncBackend).
            guard cursor <= 0 || cursor >= collected else { throw ServerStorageError.forgottenDevice(cursor: cursor, collected: collected) }
            // A cursor past the feed's end: the device was restored from an older copy. Read from the start.
            let reset = cursor > latest
            let start = reset ? 0 : cursor
            var changes: [(change: FavoriteChange, seq: Int64)] = []
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.columns), seq FROM user_favorites
                WHERE user_id = \(user.id) AND seq > \(start) ORDER BY seq LIMIT \(limit + 1)
                """, logger: logger)
            for try await row in rows {
                let cells = row.makeRandomAccess()
                changes.append((try Self.change(from: cells), try cells[10].decode(Int64.self)))
            }
            let hasMore = WireSize.cutPage(&changes, limit: limit) { $0.change }
            let next = hasMore ? changes.last?.seq ?? start : max(latest, start)
            // What the device has pulled is what it says it applied: the cursor it asks from,
            // not what this answer sends, which may be lost on the way.
            // A pull of no changes (`limit=0`) registers no device (see SQLiteSyncBackend).
            if limit > 0 {
                try await connection.query("""
                    INSERT INTO user_devices (user_id, device, pushed, pulled, last_seen, token)
                    VALUES (\(user.id), decode(\(device.description), 'hex'), 0, \(reset ? 0 : cursor), \(now), \(user.token))
                    \(unescaped: Self.recordPull)
                    """, logger: logger)
            }
            if limit > 0, !hasMore {
                // Every device of the user has applied these tombstones: they go, and a push
                // made before pulling that far is refused from now on.
                try await Self.dropAppliedTombstones(of: user, on: connection, logger: logger)
            }
            return SyncPullResponse(
                feed: user.feed.description, changes: changes.map { WireChange($0.change) }, cursor: next,
                hasMore: hasMore, reset: reset, pushed: try await Self.pushed(by: device, of: user, on: connection, logger: logger), end: latest)
        }
    }

    // MARK: - UserDirectory

    /// Adds user `name` with a first device token labelled ``DeviceAccount/firstLabel``.
    public func add(_ name: String, now: Int64) async throws -> AccessToken {
        try await add(name, device: DeviceAccount.firstLabel, now: now)
    }

    public func add(_ name: String, device: String, now: Int64) async throws -> AccessToken {
        let name = try AccountName.user(name)
        let label = try AccountName.device(device)
        let token = AccessToken.generate()
        // A feed is named by 16 random bytes, as a device is.
        let feed = FeedID.random().bytes
        let added = try await rows("adding user \(name)", """
            WITH added AS (
                INSERT INTO users (name, feed, created_at) VALUES (\(name), decode(\(Hex.encode(feed)), 'hex'), \(now))
                ON CONFLICT (name) DO NOTHING RETURNING id)
            INSERT INTO device_tokens (user_id, label, token_hash, created_at)
            SELECT id, \(label), decode(\(Hex.encode(token.hash)), 'hex'), \(now) FROM added RETURNING id
            """)
        guard added > 0 else { throw ServerStorageError.userExists(name) }
        return token
    }

    public func issueToken(for name: String, device: String, now: Int64) async throws -> AccessToken {
        let name = try AccountName.user(name)
        let label = try AccountName.device(device)
        let token = AccessToken.generate()
        let issued = try await PostgresTransaction.run(client, while: "giving \(name) a token", logger: logger) { connection in
            let user = try await Self.userID(name, on: connection, logger: logger)
            try await connection.query("DELETE FROM device_tokens WHERE user_id = \(user)", logger: logger)
            try await Self.insertToken(token, label: label, user: user, now: now, on: connection, logger: logger)
            return token
        }
        return issued
    }

    public func revoke(_ name: String) async throws {
        let name = try AccountName.user(name)
        try await PostgresTransaction.run(client, while: "revoking \(name)'s tokens", logger: logger) { connection in
            let user = try await Self.userID(name, on: connection, logger: logger)
            try await connection.query("DELETE FROM device_tokens WHERE user_id = \(user)", logger: logger)
        }
    }

    public func remove(_ name: String) async throws {
        let name = try AccountName.user(name)
        guard try await rows("removing \(name)", "DELETE FROM users WHERE name = \(name) RETURNING id") > 0 else {
            throw ServerStorageError.noSuchUser(name)
        }
    }

    public func list() async throws -> [UserAccount] {
        do {
            var users: [UserAccount] = []
            let rows = try await client.query("""
                SELECT name, EXISTS (SELECT 1 FROM device_tokens t WHERE t.user_id = users.id), created_at,
                    (SELECT count(*) FROM user_favorites f WHERE f.user_id = users.id AND NOT f.removed),
                    (SELECT count(*) FROM user_devices d WHERE d.user_id = users.id)
                FROM users ORDER BY name COLLATE "C"
                """, logger: logger)
            for try await (name, hasToken, createdAt, favorites, devices) in rows.decode((String, Bool, Int64, Int64, Int64).self) {
                users.append(UserAccount(name: name, hasToken: hasToken, favorites: Int(favorites), devices: Int(devices), createdAt: createdAt))
            }
            return users
        } catch {
            throw PostgresStorageError.wrapping(error, while: "listing the users")
        }
    }

    public func renewFeeds() async throws -> Int {
        // 16 random bytes a user: a version 4 UUID's (PostgreSQL 13 and later, no extension).
        try await rows("giving every user a new feed", "UPDATE users SET feed = uuid_send(gen_random_uuid()) RETURNING id")
    }

    public func revocationRecord() async throws -> RevocationRecord {
        // One snapshot: the hashes, the removed users and the high water of one moment.
        try await PostgresTransaction.run(client, .snapshot, while: "reading what the database revoked", logger: logger) { connection in
            var record = RevocationRecord()
            for try await hash in try await connection.query("SELECT encode(token_hash, 'hex') FROM revoked_tokens", logger: logger).decode(String.self) {
                if let bytes = Hex.decode(hash) { record.tokenHashes.insert(bytes) }
            }
            for try await id in try await connection.query("SELECT id FROM removed_users", logger: logger).decode(Int64.self) {
                record.removedUsers.insert(id)
            }
            for try await high in try await connection.query(PostgresQuery(unsafeSQL: Self.userIDHighWater), logger: logger).decode(Int64.self) {
                record.userIDHighWater = high
            }
            return record
        }
    }

    public func restore(keeping record: RevocationRecord) async throws -> RestoreOutcome {
        // As hexadecimal text: one array parameter for every hash.
        let hashes = record.tokenHashes.map { Hex.encode($0) }
        let removed = Array(record.removedUsers)
        return try await PostgresTransaction.run(client, while: "keeping the revocations of the database replaced", logger: logger) { connection in
            // Each delete leaves its hash and ID in this copy's own record (the triggers).
            var revoked = try await connection.query("""
                DELETE FROM device_tokens WHERE token_hash IN (SELECT decode(h, 'hex') FROM unnest(\(hashes)::text[]) AS h) RETURNING id
                """, logger: logger).collect().count
            revoked += try await connection.query("""
                DELETE FROM sign_in_links WHERE token_hash IN (SELECT decode(h, 'hex') FROM unnest(\(hashes)::text[]) AS h) RETURNING id
                """, logger: logger).collect().count
            try await connection.query("""
                INSERT INTO revoked_tokens (token_hash) SELECT decode(h, 'hex') FROM unnest(\(hashes)::text[]) AS h ON CONFLICT DO NOTHING
                """, logger: logger)
            let usersRemoved = try await connection.query("DELETE FROM users WHERE id = ANY(\(removed)::bigint[]) RETURNING id", logger: logger).collect().count
            try await connection.query("INSERT INTO removed_users (id) SELECT unnest(\(removed)::bigint[]) ON CONFLICT DO NOTHING", logger: logger)
            // No ID at or below the replaced database's highest is given again.
            try await connection.query("""
                SELECT setval(pg_get_serial_sequence('users', 'id'), greatest(\(record.userIDHighWater), (\(unescaped: Self.userIDHighWater)), 1))
                """, logger: logger)
            let users = try await connection.query("UPDATE users SET feed = uuid_send(gen_random_uuid()) RETURNING id", logger: logger).collect().count
            return RestoreOutcome(credentialsRevoked: revoked, usersRemoved: usersRemoved, users: users)
        }
    }

    /// The highest user ID ever given: the sequence's (none before the first), or a row's.
    static let userIDHighWater = """
        SELECT greatest(coalesce(pg_sequence_last_value(pg_get_serial_sequence('users', 'id')::regclass), 0),
            (SELECT coalesce(max(id), 0) FROM users), (SELECT coalesce(max(id), 0) FROM removed_users))::bigint
        """

    public func addDevice(_ label: String, of user: String, now: Int64) async throws -> AccessToken {
        let name = try AccountName.user(user)
        let label = try AccountName.device(label)
        let token = AccessToken.generate()
        return try await PostgresTransaction.run(client, while: "adding device \(label) of \(name)", logger: logger) { connection in
            let user = try await Self.userID(name, on: connection, logger: logger)
            let taken = try await connection.query(
                "SELECT 1 FROM device_tokens WHERE user_id = \(user) AND label = \(label)", logger: logger).collect()
            guard taken.isEmpty else { throw ServerStorageError.deviceExists(user: name, label: label) }
            try await Self.insertToken(token, label: label, user: user, now: now, on: connection, logger: logger)
            return token
        }
    }

    public func devices(of user: String) async throws -> [DeviceAccount] {
        let name = try AccountName.user(user)
        return try await PostgresTransaction.run(client, while: "listing the devices of \(name)", logger: logger) { connection in
            let user = try await Self.userID(name, on: connection, logger: logger)
            var devices: [DeviceAccount] = []
            let rows = try await connection.query("""
                SELECT t.label, t.created_at, t.shared, encode(coalesce(d.device, t.device), 'hex'), d.last_seen, d.pulled, d.pushed,
                    CASE WHEN d.device IS NULL THEN 0 ELSE
                        (SELECT count(*) FROM user_favorites f WHERE f.user_id = t.user_id AND f.removed AND f.seq > d.pulled) END
                FROM device_tokens t LEFT JOIN user_devices d ON d.token = t.id
                WHERE t.user_id = \(user) ORDER BY t.label COLLATE "C", d.device
                """, logger: logger)
            for try await (label, addedAt, shared, device, lastSeen, pulled, pushed, held)
                in rows.decode((String, Int64, Bool, String?, Int64?, Int64?, Int64?, Int64).self) {
                devices.append(DeviceAccount(
                    label: label, addedAt: addedAt, shared: shared, device: device, lastSeen: lastSeen, pulled: pulled, pushed: pushed,
                    tombstonesHeld: Int(held)))
            }
            // Sign-in links not used yet: the label is taken, and `devices revoke` cancels them.
            let links = try await connection.query("""
                SELECT label, created_at, expires_at FROM sign_in_links WHERE user_id = \(user) AND expires_at > \(wallClock()) ORDER BY label COLLATE "C"
                """, logger: logger)
            for try await (label, addedAt, expiresAt) in links.decode((String, Int64, Int64).self) {
                devices.append(DeviceAccount(
                    label: label, addedAt: addedAt, shared: false, device: nil, lastSeen: nil, pulled: nil, pushed: nil, tombstonesHeld: 0,
                    pendingLinkUntil: expiresAt))
            }
            return devices
        }
    }

    public func revokeDevice(_ label: String, of user: String) async throws {
        let name = try AccountName.user(user)
        let label = try AccountName.device(label)
        try await PostgresTransaction.run(client, while: "revoking device \(label) of \(name)", logger: logger) { connection in
            let user = try await Self.userID(name, on: connection, logger: logger)
            let deleted = try await connection.query(
                "DELETE FROM device_tokens WHERE user_id = \(user) AND label = \(label) RETURNING id", logger: logger).collect()
            // The label's sign-in links not used yet are cancelled with it.
            let cancelled = try await connection.query(
                "DELETE FROM sign_in_links WHERE user_id = \(user) AND label = \(label) RETURNING id", logger: logger).collect()
            guard !deleted.isEmpty || !cancelled.isEmpty else { throw ServerStorageError.noSuchDevice(user: name, label: label) }
        }
    }

    static func userID(_ name: String, on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        for try await id in try await connection.query("SELECT id FROM users WHERE name = \(name)", logger: logger).decode(Int64.self) {
            return id
        }
        throw ServerStorageError.noSuchUser(name)
    }

    private static func insertToken(_ token: AccessToken, label: String, user: Int64, now: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO device_tokens (user_id, label, token_hash, created_at)
            VALUES (\(user), \(label), decode(\(Hex.encode(token.hash)), 'hex'), \(now))
            """, logger: logger)
    }

    /// Whether `user`'s token serves `device` (``DeviceBinding``, the rule
    /// ``UserStore``'s admit applies too), binding it on its first sync; in the caller's
    /// transaction, the user's row locked.
    private static func admit(_ device: DeviceID, for user: AuthenticatedUser, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query("""
            SELECT encode(bound, 'hex'), shared, taken FROM (
                SELECT \(unescaped: bindingFacts)
                FROM device_tokens t, (SELECT decode(\(device.description), 'hex') AS device) AS request
                WHERE t.id = \(user.token) AND t.user_id = \(user.id)) AS facts
            """, logger: logger)
        var facts: (bound: DeviceID?, shared: Bool, taken: Bool)?
        for try await (bound, shared, taken) in rows.decode((String?, Bool, Bool).self) {
            facts = (bound.flatMap(DeviceID.init(hex:)), shared, taken)
        }
        // Revoked since it was checked: answered as any refused token.
        guard let facts else { throw ServerStorageError.noSuchUser(user.name) }
        switch DeviceBinding.decide(device: device, bound: facts.bound, shared: facts.shared, takenByAnother: facts.taken) {
        case .admitted: break
        case .bind:
            try await connection.query(
                "UPDATE device_tokens SET device = decode(\(device.description), 'hex') WHERE id = \(user.token) AND device IS NULL", logger: logger)
        case .refused: throw ServerStorageError.tokenOfAnotherDevice(user: user.name, label: user.device)
        }
    }

    /// Runs `query` and counts the rows it returns.
    func rows(_ what: String, _ query: PostgresQuery) async throws -> Int {
        do {
            return try await client.query(query, logger: logger).collect().count
        } catch {
            throw PostgresStorageError.wrapping(error, while: what)
        }
    }

    // MARK: - Statements

    /// The columns a change is read from, in ``change(from:)``'s order.
    static let columns = "id, stamp, encode(device, 'hex'), removed, photo_url, category, dish_name, shop_name, introduction, stored_at"

    /// Locks `user`'s row for this transaction and reads its seq and tombstone horizon.
    private static func lockUser(_ user: AuthenticatedUser, on connection: PostgresConnection, logger: Logger) async throws -> (seq: Int64, collected: Int64) {
        let rows = try await connection.query(
            "SELECT seq, collected FROM users WHERE id = \(user.id) AND feed = decode(\(user.feed.description), 'hex') FOR UPDATE", logger: logger)
        for try await state in rows.decode((Int64, Int64).self) { return state }
        // Removed since its token was checked (the feed, random to each user, tells a user
        // added since apart even if it had the same ID): nothing is read or written.
        throw ServerStorageError.noSuchUser(user.name)
    }

    /// Merges `changes` (one per favorite) into `user`'s favorites, the rule in the `WHERE`;
    /// the i-th change, when it wins, takes seq `after + i`. In the same statement: the
    /// user's feed end moves past the batch, and `device` is recorded as having pushed its
    /// feed through `through`. Returns the IDs of the changes that won, and how far the
    /// device has pushed.
    private static func merge(
        _ changes: [FavoriteChange], after seq: Int64, from device: DeviceID, through: Int64, now: Int64,
        for user: AuthenticatedUser, on connection: PostgresConnection, logger: Logger
    ) async throws -> (applied: Set<Int>, pushed: Int64) {
        let batch = PostgresMergeBatch(changes)
        let rows = try await connection.query("""
            WITH merged AS (
            \(unescaped: PostgresMergeBatch.insert)
            SELECT \(user.id), c.id, c.stamp, decode(c.device, 'hex'), \(seq) + c.n, c.removed, \(unescaped: PostgresMergeBatch.storedFields)
            FROM unnest(\(batch.ids)::bigint[], \(batch.stamps)::bigint[], \(batch.devices)::text[], \(batch.removed)::boolean[],
                        \(batch.texts[0])::text[], \(batch.texts[1])::text[], \(batch.texts[2])::text[], \(batch.texts[3])::text[],
                        \(batch.texts[4])::text[], \(batch.storedAt)::bigint[]) WITH ORDINALITY \(unescaped: PostgresMergeBatch.columns)
            \(unescaped: PostgresMergeBatch.rule)
            RETURNING id
            ), moved AS (
                UPDATE users SET seq = \(seq + Int64(changes.count)) WHERE id = \(user.id) AND \(!changes.isEmpty)
            ), recorded AS (
                INSERT INTO user_devices (user_id, device, pushed, pulled, last_seen, token)
                VALUES (\(user.id), decode(\(device.description), 'hex'), \(through), 0, \(now), \(user.token))
                \(unescaped: Self.recordPush)
            )
            SELECT (SELECT pushed FROM recorded), ARRAY(SELECT id FROM merged)
            """, logger: logger)
        for try await (pushed, ids) in rows.decode((Int64, [Int64]).self) {
            return (Set(ids.map { Int($0) }), pushed)
        }
        throw ServerStorageError.damagedRow("the push of \(user.name) returned no row")
    }

    /// The states `user` holds for `ids`, by ID.
    static func current(_ ids: [Int], of user: AuthenticatedUser, on connection: PostgresConnection, logger: Logger) async throws -> [Int: FavoriteChange] {
        var held: [Int: FavoriteChange] = [:]
        let rows = try await connection.query("""
            SELECT \(unescaped: columns) FROM user_favorites WHERE user_id = \(user.id) AND id = ANY(\(ids.map(Int64.init))::bigint[])
            """, logger: logger)
        for try await row in rows {
            let change = try change(from: row.makeRandomAccess())
            held[change.id] = change
        }
        return held
    }

    private static func pushed(by device: DeviceID, of user: AuthenticatedUser, on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            "SELECT pushed FROM user_devices WHERE user_id = \(user.id) AND device = decode(\(device.description), 'hex')", logger: logger)
        for try await row in rows { return try row.makeRandomAccess()[0].decode(Int64.self) }
        return 0
    }

    /// The change a row holds (its columns from `first` on: ``columns``).
    static func change(from row: PostgresRandomAccessRow, at first: Int = 0) throws -> FavoriteChange {
        let id = try row[first].decode(Int64.self), stamp = try row[first + 1].decode(Int64.self)
        let deviceHex = try row[first + 2].decode(String.self), removed = try row[first + 3].decode(Bool.self)
        let photoUrl = try row[first + 4].decode(String?.self), category = try row[first + 5].decode(String?.self)
        let dishName = try row[first + 6].decode(String?.self), shopName = try row[first + 7].decode(String?.self)
        let introduction = try row[first + 8].decode(String?.self), storedAt = try row[first + 9].decode(Int64?.self)
        guard let device = DeviceID(hex: deviceHex) else {
            throw ServerStorageError.damagedRow("favorite \(id) has a device ID that is not 16 bytes")
        }
        let changeStamp = ChangeStamp(time: HybridTimestamp(rawValue: stamp), device: device)
        if removed { return FavoriteChange(id: Int(id), stamp: changeStamp, state: .removed) }
        guard let photoUrl, let category, let dishName, let shopName, let introduction, let storedAt else {
            throw ServerStorageError.damagedRow("stored favorite \(id) has a field that is NULL")
        }
        let object = StoredArchiveObject(
            id: Int(id), photoUrl: photoUrl, category: category, dishName: dishName, shopName: shopName,
            introduction: introduction, storedAtMilliseconds: storedAt)
        return FavoriteChange(id: Int(id), stamp: changeStamp, state: .stored(object))
    }
}
