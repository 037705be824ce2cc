package import ArchiveServerStorage
import ArchiveSyncWire
import Logging
package import PostgresNIO
import Synchronization
package import ArchiveSyncModel

/// The common push and pull in one statement each, without `BEGIN` and `COMMIT`: one round
/// trip to PostgreSQL after the token check instead of five (a push) or eight (a pull),
/// each of which woke a thread of the server at a device's pace (docs/PERFORMANCE.md, "One
/// statement a request").
///
/// One statement decides nothing that ``DeviceBinding`` decides in Swift but one case:
/// a device's own token, already bound to the request's device ID (``admittedByItsBinding``,
/// proven to be that case of ``DeviceBinding/decide(device:bound:shared:takenByAnother:)``
/// by `PostgresOneStatementTests`). That case no other request can change under the
/// statement: a bound token stays bound, and no other token can bind to its device. A
/// statement that finds any other case (a first sync, which binds; a shared token; a token
/// revoked or a user removed since the check; a stale push; a forgotten device) writes
/// nothing and answers `nil`, and the caller runs the transaction that decides step by step.
extension PostgresSyncStorage {
    /// The case a statement admits on its own, over the columns `bound` (the token's device
    /// ID, `NULL` before its first sync), `shared`, `taken` (another token of the user is
    /// bound to the request's device ID) and `device` (the request's), of a row named `facts`.
    package static let admittedByItsBinding = "coalesce(NOT facts.shared AND facts.bound = facts.device AND NOT facts.taken, false)"

    /// The facts ``admittedByItsBinding`` reads (as the transaction's admission does),
    /// selected from a token row `t` and a row `request` holding the request's `device`.
    static let bindingFacts = """
        t.device AS bound, t.shared, request.device,
        EXISTS (SELECT 1 FROM device_tokens o WHERE o.user_id = t.user_id AND o.device = request.device AND o.id <> t.id) AS taken
        """

    /// A push in one statement: the user's row locked (its seq and tombstone horizon read
    /// as they are once locked), the token's binding and the push's `seen` checked, then,
    /// when both pass, the batch merged, the feed's end moved and the device recorded, as
    /// the transaction does. `nil` when they do not pass: nothing was written.
    func pushInOneStatement(
        _ changes: [FavoriteChange], from device: DeviceID, through: Int64, seen: Int64, now: Int64, for user: AuthenticatedUser
    ) async throws -> SyncPushResponse? {
        let batch = PostgresMergeBatch(changes)
        let answer: (admitted: Bool, pushed: Int64?, applied: [Int64])
        do {
            // `held` locks the row first: every other part reads `gate`, which reads `held`.
            // Locked, the row is read as it is now, not as the statement's snapshot saw it
            // (a push of the same user that committed while this one waited moved its seq).
            let rows = try await client.query(
                Self.pushStatement(batch, count: changes.count, from: device, through: through, seen: seen, now: now, for: user), logger: logger)
            var row: (Bool, Int64?, [Int64])?
            for try await decoded in rows.decode((Bool, Int64?, [Int64]).self) { row = decoded }
            guard let row else { throw ServerStorageError.damagedRow("the push of \(user.name) returned no row") }
            answer = row
        } catch let error as ServerStorageError {
            throw error
        } catch {
            throw PostgresStorageError.wrapping(error, while: "applying a push of \(user.name)")
        }
        guard answer.admitted else { return nil }
        oneStatementAnswers.add(1, ordering: .relaxed)
        guard let pushed = answer.pushed else { throw ServerStorageError.damagedRow("the push of \(user.name) recorded no device") }
        let applied = Set(answer.applied.map { Int($0) })
        var summary = SyncPushResponse(applied: applied.count, superseded: 0, alreadyHeld: 0, pushed: pushed)
        let others = changes.filter { !applied.contains($0.id) }
        if !others.isEmpty {
            // Counted after the commit, in a statement of its own: a push of the same
            // favorites by another device in between can count a change superseded that was
            // already held. The counts only report (the answer's and the metrics').
            let held: [Int: FavoriteChange]
            do {
                held = try await client.withConnection { connection in
                    try await Self.current(others.map(\.id), of: user, on: connection, logger: logger)
                }
            } catch let error as ServerStorageError {
                throw error
            } catch {
                throw PostgresStorageError.wrapping(error, while: "counting a push of \(user.name)")
            }
            for change in others {
                if held[change.id] == change { summary.alreadyHeld += 1 } else { summary.superseded += 1 }
            }
        }
        return summary
    }

    /// A pull in one statement, read from one snapshot of the database without the user's
    /// lock: a push commits the user's seq and its changes together, so a snapshot holds
    /// all of a push or none, and the page and the feed's end agree. The cursor the device
    /// asks from is recorded as applied, as the transaction does. When the page reaches the
    /// feed's end and the user has tombstones every device has applied, those are dropped
    /// after it, in a transaction that holds the user's lock (``dropAppliedTombstones(of:)``).
    /// `nil` when the token's binding or the cursor do not pass: nothing was written.
    func pullInOneStatement(
        for user: AuthenticatedUser, device: DeviceID, after cursor: Int64, limit: Int, now: Int64
    ) async throws -> SyncPullResponse? {
        var admitted = false, latest: Int64 = 0, pushed: Int64 = 0, droppable = false
        var changes: [(change: FavoriteChange, seq: Int64)] = []
        var reset = false
        do {
            // `reset`: a cursor past the feed's end is a device restored from an older copy,
            // which reads the feed from its start (`start` 0), and records that it has.
            let rows = try await client.query(
                Self.pullStatement(for: user, device: device, after: cursor, limit: limit, now: now), logger: logger)
            for try await row in rows {
                let cells = row.makeRandomAccess()
                guard try cells[0].decode(Bool?.self) == true else { continue }
                admitted = true
                latest = try cells[1].decode(Int64.self)
                reset = try cells[2].decode(Bool.self)
                pushed = try cells[3].decode(Int64.self)
                droppable = try cells[4].decode(Bool.self)
                if try cells[5].decode(Int64?.self) != nil {
                    changes.append((try Self.change(from: cells, at: 5), try cells[15].decode(Int64.self)))
                }
            }
        } catch let error as ServerStorageError {
            throw error
        } catch {
            throw PostgresStorageError.wrapping(error, while: "reading a pull of \(user.name)")
        }
        guard admitted else { return nil }
        oneStatementAnswers.add(1, ordering: .relaxed)
        let start = reset ? 0 : cursor
        let hasMore = WireSize.cutPage(&changes, limit: limit) { $0.change }
        let next = hasMore ? changes.last?.seq ?? start : max(latest, start)
        if droppable, !hasMore { try await dropAppliedTombstones(of: user) }
        return SyncPullResponse(
            feed: user.feed.description, changes: changes.map { WireChange($0.change) }, cursor: next,
            hasMore: hasMore, reset: reset, pushed: pushed, end: latest)
    }

    /// The statement of ``pushInOneStatement(_:from:through:seen:now:for:)``: `batch` (of
    /// `count` changes) from `device`. (`Benchmarks/load/push.sql` runs it as written here,
    /// its binds replaced by pgbench's values: `LoadStatementTests`.)
    package static func pushStatement(
        _ batch: PostgresMergeBatch, count: Int, from device: DeviceID, through: Int64, seen: Int64, now: Int64, for user: AuthenticatedUser
    ) -> PostgresQuery {
        """
        WITH held AS MATERIALIZED (
            SELECT seq, collected FROM users WHERE id = \(user.id) AND feed = decode(\(user.feed.description), 'hex') FOR UPDATE
        ), facts AS MATERIALIZED (
            SELECT held.seq, held.collected, \(unescaped: Self.bindingFacts)
            FROM held, device_tokens t, (SELECT decode(\(device.description), 'hex') AS device) AS request
            WHERE t.id = \(user.token) AND t.user_id = \(user.id)
        ), gate AS MATERIALIZED (
            SELECT seq, \(unescaped: Self.admittedByItsBinding) AND \(seen) >= collected AS admitted FROM facts
        ), merged AS (
            \(unescaped: PostgresMergeBatch.insert)
            SELECT \(user.id), c.id, c.stamp, decode(c.device, 'hex'), (SELECT seq FROM gate) + c.n, c.removed, \(unescaped: PostgresMergeBatch.storedFields)
            FROM unnest(\(batch.ids)::bigint[], \(batch.stamps)::bigint[], \(batch.devices)::text[], \(batch.removed)::boolean[],
                        \(batch.texts[0])::text[], \(batch.texts[1])::text[], \(batch.texts[2])::text[], \(batch.texts[3])::text[],
                        \(batch.texts[4])::text[], \(batch.storedAt)::bigint[]) WITH ORDINALITY \(unescaped: PostgresMergeBatch.columns)
            WHERE (SELECT admitted FROM gate)
            \(unescaped: PostgresMergeBatch.rule)
            RETURNING id
        ), moved AS (
            UPDATE users SET seq = (SELECT seq FROM gate) + \(Int64(count))
            WHERE id = \(user.id) AND \(count > 0) AND (SELECT admitted FROM gate)
        ), recorded AS (
            INSERT INTO user_devices (user_id, device, pushed, pulled, last_seen, token)
            SELECT \(user.id), decode(\(device.description), 'hex'), \(through), 0, \(now), \(user.token) WHERE (SELECT admitted FROM gate)
            \(unescaped: Self.recordPush)
        )
        SELECT coalesce((SELECT admitted FROM gate), false), (SELECT pushed FROM recorded), ARRAY(SELECT id FROM merged)
        """
    }

    /// The statement of ``pullInOneStatement(for:device:after:limit:now:)``. (`Benchmarks/load/pull.sql`
    /// runs it as written here, its binds replaced by pgbench's values: `LoadStatementTests`.)
    package static func pullStatement(for user: AuthenticatedUser, device: DeviceID, after cursor: Int64, limit: Int, now: Int64) -> PostgresQuery {
        """
        WITH facts AS MATERIALIZED (
            SELECT u.seq, u.collected, \(unescaped: Self.bindingFacts)
            FROM users u, device_tokens t, (SELECT decode(\(device.description), 'hex') AS device) AS request
            WHERE u.id = \(user.id) AND u.feed = decode(\(user.feed.description), 'hex') AND t.id = \(user.token) AND t.user_id = u.id
        ), gate AS MATERIALIZED (
            SELECT seq, admitted, reset, CASE WHEN reset THEN 0 ELSE \(cursor) END AS start FROM (
                SELECT seq, \(unescaped: Self.admittedByItsBinding) AND (\(cursor) <= 0 OR \(cursor) >= collected) AS admitted,
                    \(cursor) > seq AS reset
                FROM facts) AS decided
        ), page AS MATERIALIZED (
            SELECT \(unescaped: Self.columns), seq FROM user_favorites
            WHERE user_id = \(user.id) AND seq > (SELECT start FROM gate) AND (SELECT admitted FROM gate)
            ORDER BY seq LIMIT \(limit + 1)
        ), recorded AS (
            INSERT INTO user_devices (user_id, device, pushed, pulled, last_seen, token)
            SELECT \(user.id), decode(\(device.description), 'hex'), 0, start, \(now), \(user.token) FROM gate WHERE admitted AND \(limit > 0)
            \(unescaped: Self.recordPull)
        )
        SELECT gate.admitted, gate.seq, gate.reset,
            coalesce((SELECT pushed FROM recorded),
                     (SELECT pushed FROM user_devices WHERE user_id = \(user.id) AND device = decode(\(device.description), 'hex')), 0),
            CASE WHEN \(limit > 0) AND (SELECT count(*) FROM page) <= \(limit) THEN EXISTS (
                SELECT 1 FROM user_favorites WHERE user_id = \(user.id) AND removed AND seq <= (
                    SELECT min(pulled) FROM (
                        SELECT pulled FROM user_devices WHERE user_id = \(user.id) AND device <> decode(\(device.description), 'hex')
                        UNION ALL SELECT pulled FROM recorded) AS devices))
            ELSE false END,
            page.*
        FROM (VALUES (1)) AS one LEFT JOIN gate ON true LEFT JOIN page ON true ORDER BY page.seq
        """
    }

    /// Drops `user`'s tombstones that every device of the user has applied (its lowest
    /// `pulled`), and moves the user's tombstone horizon to it: a push made before pulling
    /// that far is refused from now on. In a transaction that locks the user's row first,
    /// as every push does, so that no push merges against a tombstone while it goes.
    func dropAppliedTombstones(of user: AuthenticatedUser) async throws {
        try await PostgresTransaction.run(client, while: "dropping the applied removals of \(user.name)", logger: logger) { connection in
            try await connection.query("SELECT 1 FROM users WHERE id = \(user.id) FOR UPDATE", logger: logger)
            try await Self.dropAppliedTombstones(of: user, on: connection, logger: logger)
        }
    }

    /// The drop of ``dropAppliedTombstones(of:)``, in the caller's transaction, the user's row locked.
    static func dropAppliedTombstones(of user: AuthenticatedUser, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            WITH everyone AS (SELECT min(pulled) AS seq FROM user_devices WHERE user_id = \(user.id)),
            dropped AS (
                DELETE FROM user_favorites WHERE user_id = \(user.id) AND removed AND seq <= (SELECT seq FROM everyone)
                RETURNING 1)
            UPDATE users SET collected = GREATEST(collected, (SELECT seq FROM everyone))
            WHERE id = \(user.id) AND EXISTS (SELECT 1 FROM dropped)
            """, logger: logger)
    }

    /// A push's record of its device: how far it has pushed its own feed, and when it was last seen.
    static let recordPush = """
        ON CONFLICT (user_id, device) DO UPDATE
        SET pushed = GREATEST(user_devices.pushed, excluded.pushed), last_seen = excluded.last_seen, token = excluded.token
        RETURNING pushed
        """

    /// A pull's record of its device: the cursor it asked from (what it has applied), and
    /// when it was last seen.
    static let recordPull = """
        ON CONFLICT (user_id, device) DO UPDATE
        SET pulled = GREATEST(user_devices.pulled, excluded.pulled), last_seen = excluded.last_seen, token = excluded.token
        RETURNING pushed, pulled
        """
}
