public import ArchiveServerStorage
public import ArchiveSyncModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOPosix
import SQLite

extension SQLiteSyncBackend {
    public func redeemSignInLink(_ secret: AccessToken, device: DeviceID, session: AccessToken, sessionEnd: Int64) async throws -> SignInOutcome {
        let now = wallClock()
        return try await run("using a sign-in link") {
            try users.redeemSignInLink(secret, device: device, session: session, sessionEnd: sessionEnd, now: now)
        }
    }

    public func signInTarget(of secret: AccessToken) async throws -> SignInTarget? {
        let now = wallClock()
        return try await run("reading a sign-in link") { try users.signInTarget(of: secret, now: now) }
    }

    public func endSession(_ user: AuthenticatedUser) async throws {
        try await run("signing out a device of \(user.name)") { try users.endSession(user) }
    }

    public func favorites(of user: AuthenticatedUser, matching: String, after: FavoritesPosition?, limit: Int, window: Int) async throws -> FavoritesPage {
        try await run("reading the favorites of \(user.name)") {
            try database.queue.snapshot { db in
                guard let position = try db.fetchOne(
                    "SELECT seq FROM users WHERE id = ? AND feed = ?", user.id, user.feed.bytes, row: { try $0.int64(at: 0) })
                else { throw ServerStorageError.noSuchUser(user.name) }
                let lastSync = try Self.lastSync(of: user, in: db)
                // Keyset paging on the partial index (user, stored_at DESC, id DESC): a page
                // costs its own rows whatever its depth, and a search at most `window` rows.
                // `archive_contains` compares ASCII letters ignoring case, in linear time
                // (``FoldedSubstring``: PostgreSQL's `strpos` over `lower`, the same rule).
                let storedAt = after?.storedAt ?? Int64.max, id = after?.id ?? Int.max
                let scanned = matching.isEmpty ? limit + 1 : max(window, 1)
                var rows = try db.fetchAll("""
                    WITH scanned AS (
                        SELECT id, stamp, device, removed, photo_url, category, dish_name, shop_name, introduction, stored_at
                        FROM user_favorites INDEXED BY user_favorites_newest
                        WHERE user = ?1 AND removed = 0 AND (stored_at, id) < (?2, ?3)
                        ORDER BY stored_at DESC, id DESC LIMIT ?5)
                    SELECT * FROM scanned
                    WHERE ?4 = '' OR archive_contains(dish_name, ?4) OR archive_contains(shop_name, ?4)
                        OR archive_contains(category, ?4) OR archive_contains(introduction, ?4)
                    ORDER BY stored_at DESC, id DESC LIMIT ?6
                    """, user.id, storedAt, id, matching, scanned, limit + 1) { row -> StoredArchiveObject? in
                    guard case .stored(let object) = try Self.change(from: row).state else { return nil }
                    return object
                }.compactMap { $0 }
                let more = rows.count > limit
                if more { rows.removeLast() }
                var next = more ? rows.last.map { FavoritesPosition(storedAt: $0.storedAtMilliseconds, id: $0.id) } : nil
                var partial = false
                if !more, !matching.isEmpty, let edge = try db.fetchOne("""
                    SELECT stored_at, id FROM user_favorites INDEXED BY user_favorites_newest
                    WHERE user = ?1 AND removed = 0 AND (stored_at, id) < (?2, ?3)
                    ORDER BY stored_at DESC, id DESC LIMIT 1 OFFSET ?4
                    """, user.id, storedAt, id, scanned - 1, row: { FavoritesPosition(storedAt: try $0.int64(at: 0), id: try $0.int(at: 1)) }) {
                    // The window was full: the search goes on after its last favorite.
                    next = edge
                    partial = true
                }
                return FavoritesPage(favorites: rows, next: next, partial: partial, position: position, lastSync: lastSync)
            }
        }
    }

    public func held(_ ids: [Int], of user: AuthenticatedUser) async throws -> HeldFavorites {
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        return try await run("reading favorites of \(user.name)") {
            try database.queue.snapshot { db in
                guard let position = try db.fetchOne(
                    "SELECT seq FROM users WHERE id = ? AND feed = ?", user.id, user.feed.bytes, row: { try $0.int64(at: 0) })
                else { throw ServerStorageError.noSuchUser(user.name) }
                var changes: [Int: FavoriteChange] = [:]
                if !ids.isEmpty {
                    for change in try db.fetchAll("""
                        SELECT id, stamp, device, removed, photo_url, category, dish_name, shop_name, introduction, stored_at
                        FROM user_favorites WHERE user = ? AND id IN (SELECT value FROM json_each(?))
                        """, user.id, list, row: Self.change(from:)) {
                        changes[change.id] = change
                    }
                }
                return HeldFavorites(changes: changes, position: position, lastSync: try Self.lastSync(of: user, in: db))
            }
        }
    }

    /// When a device of `user` last pushed or pulled, or `nil`.
    private static func lastSync(of user: AuthenticatedUser, in db: Database) throws -> Int64? {
        try db.fetchOne("SELECT max(last_seen) FROM user_devices WHERE user = ?", user.id) { row in
            row.isNull(at: 0) ? nil : try row.int64(at: 0)
        } ?? nil
    }
}
