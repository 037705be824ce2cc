public import ArchiveServerStorage
import Logging
import PostgresNIO
public import ArchiveSyncModel

extension PostgresSyncStorage {
    // MARK: - Sign-in links (UserStore's, in PostgreSQL)

    public func createSignInLink(for user: String, label: String, now: Int64, expiresAt: Int64) async throws -> AccessToken {
        let name = try AccountName.user(user)
        let label = try AccountName.device(label)
        let secret = AccessToken.generate()
        return try await PostgresTransaction.run(client, while: "making a sign-in link for \(name)", logger: logger) { connection in
            let user = try await Self.userID(name, on: connection, logger: logger)
            let taken = try await connection.query(
                "SELECT 1 FROM device_tokens WHERE user_id = \(user) AND label = \(label)", logger: logger).collect()
            guard taken.isEmpty else { throw ServerStorageError.deviceExists(user: name, label: label) }
            try await connection.query("DELETE FROM sign_in_links WHERE user_id = \(user) AND expires_at <= \(now)", logger: logger)
            try await connection.query("""
                INSERT INTO sign_in_links (user_id, label, token_hash, created_at, expires_at)
                VALUES (\(user), \(label), decode(\(Hex.encode(secret.hash)), 'hex'), \(now), \(expiresAt))
                """, logger: logger)
            return secret
        }
    }

    public func signInTarget(of secret: AccessToken) async throws -> SignInTarget? {
        let hash = secret.hash, now = wallClock()
        do {
            return try await client.withConnection { connection in
                let rows = try await connection.query("""
                    SELECT u.name, l.label, encode(l.token_hash, 'hex') FROM sign_in_links l JOIN users u ON u.id = l.user_id
                    WHERE l.token_hash = decode(\(Hex.encode(hash)), 'hex') AND l.expires_at > \(now)
                    """, logger: logger)
                var target: SignInTarget?
                for try await (name, label, stored) in rows.decode((String, String, String).self)
                where AccessToken.constantTimeEqual(Hex.decode(stored) ?? [], hash) {
                    target = SignInTarget(user: name, label: label)
                }
                return target
            }
        } catch {
            throw PostgresStorageError.wrapping(error, while: "reading a sign-in link")
        }
    }

    public func redeemSignInLink(_ secret: AccessToken, device: DeviceID, session: AccessToken, sessionEnd: Int64) async throws -> SignInOutcome {
        let hash = secret.hash, now = wallClock()
        return try await PostgresTransaction.run(client, while: "using a sign-in link", logger: logger) { connection in
            // Deleted as it is read: two browsers opening one link at once, one signs in.
            let rows = try await connection.query("""
                DELETE FROM sign_in_links l USING users u
                WHERE l.token_hash = decode(\(Hex.encode(hash)), 'hex') AND u.id = l.user_id
                RETURNING l.user_id, u.name, l.label, l.expires_at, encode(l.token_hash, 'hex')
                """, logger: logger)
            var found: (user: Int64, name: String, label: String, expiresAt: Int64)?
            for try await (user, name, label, expiresAt, stored) in rows.decode((Int64, String, String, Int64, String).self)
            where AccessToken.constantTimeEqual(Hex.decode(stored) ?? [], hash) {
                found = (user, name, label, expiresAt)
            }
            guard let found, found.expiresAt > now else { return .refused }
            let taken = try await connection.query(
                "SELECT 1 FROM device_tokens WHERE user_id = \(found.user) AND label = \(found.label)", logger: logger).collect()
            guard taken.isEmpty else { return .labelTaken(user: found.name, label: found.label) }
            try await connection.query("""
                INSERT INTO device_tokens (user_id, label, token_hash, device, created_at, expires_at)
                VALUES (\(found.user), \(found.label), decode(\(Hex.encode(session.hash)), 'hex'), decode(\(device.description), 'hex'), \(now), \(sessionEnd))
                """, logger: logger)
            return .signedIn(user: found.name, label: found.label)
        }
    }

    public func endSession(_ user: AuthenticatedUser) async throws {
        _ = try await rows(
            "signing out a device of \(user.name)", "DELETE FROM device_tokens WHERE id = \(user.token) AND user_id = \(user.id) RETURNING id")
    }

    // MARK: - The web page's reads

    public func favorites(of user: AuthenticatedUser, matching: String, after: FavoritesPosition?, limit: Int, window: Int) async throws -> FavoritesPage {
        let storedAt = after?.storedAt ?? Int64.max, id = Int64(after?.id ?? Int.max)
        let scanned = matching.isEmpty ? limit + 1 : max(window, 1)
        do {
            // One snapshot: the feed's position and the rows of one moment (a push between
            // the two statements would show a favorite past the position the page gives).
            return try await PostgresTransaction.run(client, .snapshot, while: "reading the favorites of \(user.name)", logger: logger) { connection in
                let (position, lastSync) = try await Self.position(of: user, on: connection, logger: logger)
                // A search looks through the next `window` favorites only (the subquery, on the
                // index user_favorites_newest). `strpos` finds the text as it is (no LIKE
                // wildcards to escape); `lower` folds ASCII letters only here, as SQLite's LIKE
                // does (the C collation of the columns, and of the text).
                let rows = try await connection.query("""
                    SELECT \(unescaped: Self.columns) FROM (
                        SELECT id, stamp, device, removed, photo_url, category, dish_name, shop_name, introduction, stored_at FROM user_favorites
                        WHERE user_id = \(user.id) AND NOT removed AND (stored_at, id) < (\(storedAt), \(id))
                        ORDER BY stored_at DESC, id DESC LIMIT \(scanned)) AS scanned
                    WHERE \(matching) = '' OR strpos(lower(dish_name), lower(\(matching) COLLATE "C")) > 0
                        OR strpos(lower(shop_name), lower(\(matching) COLLATE "C")) > 0 OR strpos(lower(category), lower(\(matching) COLLATE "C")) > 0
                        OR strpos(lower(introduction), lower(\(matching) COLLATE "C")) > 0
                    ORDER BY stored_at DESC, id DESC LIMIT \(limit + 1)
                    """, logger: logger)
                var favorites: [StoredArchiveObject] = []
                for try await row in rows {
                    if case .stored(let object) = try Self.change(from: row.makeRandomAccess()).state { favorites.append(object) }
                }
                let more = favorites.count > limit
                if more { favorites.removeLast() }
                var next = more ? favorites.last.map { FavoritesPosition(storedAt: $0.storedAtMilliseconds, id: $0.id) } : nil
                var partial = false
                if !more, !matching.isEmpty {
                    // The window was full: the search goes on after its last favorite.
                    for try await (edgeStoredAt, edgeID) in try await connection.query("""
                        SELECT stored_at, id FROM user_favorites
                        WHERE user_id = \(user.id) AND NOT removed AND (stored_at, id) < (\(storedAt), \(id))
                        ORDER BY stored_at DESC, id DESC LIMIT 1 OFFSET \(scanned - 1)
                        """, logger: logger).decode((Int64, Int64).self) {
                        next = FavoritesPosition(storedAt: edgeStoredAt, id: Int(edgeID))
                        partial = true
                    }
                }
                return FavoritesPage(favorites: favorites, next: next, partial: partial, position: position, lastSync: lastSync)
            }
        } catch let error as ServerStorageError {
            throw error
        } catch {
            throw PostgresStorageError.wrapping(error, while: "reading the favorites of \(user.name)")
        }
    }

    public func held(_ ids: [Int], of user: AuthenticatedUser) async throws -> HeldFavorites {
        do {
            return try await PostgresTransaction.run(client, .snapshot, while: "reading favorites of \(user.name)", logger: logger) { connection in
                let (position, lastSync) = try await Self.position(of: user, on: connection, logger: logger)
                var changes: [Int: FavoriteChange] = [:]
                if !ids.isEmpty {
                    let rows = try await connection.query("""
                        SELECT \(unescaped: Self.columns) FROM user_favorites WHERE user_id = \(user.id) AND id = ANY(\(ids.map(Int64.init))::bigint[])
                        """, logger: logger)
                    for try await row in rows {
                        let change = try Self.change(from: row.makeRandomAccess())
                        changes[change.id] = change
                    }
                }
                return HeldFavorites(changes: changes, position: position, lastSync: lastSync)
            }
        } catch let error as ServerStorageError {
            throw error
        } catch {
            throw PostgresStorageError.wrapping(error, while: "reading favorites of \(user.name)")
        }
    }

    /// `user`'s feed position and when a device of it last synced.
    private static func position(of user: AuthenticatedUser, on connection: PostgresConnection, logger: Logger) async throws -> (Int64, Int64?) {
        for try await (seq, last) in try await connection.query("""
            SELECT u.seq, (SELECT max(last_seen) FROM user_devices d WHERE d.user_id = u.id)
            FROM users u WHERE u.id = \(user.id) AND u.feed = decode(\(user.feed.description), 'hex')
            """, logger: logger).decode((Int64, Int64?).self) {
            return (seq, last)
        }
        throw ServerStorageError.noSuchUser(user.name)
    }
}
