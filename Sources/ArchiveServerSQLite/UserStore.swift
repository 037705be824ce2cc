public import ArchiveServerStorage
import SQLite
public import ArchiveSyncModel

/// The service's users and their devices' tokens (`archive-server users …`, `archive-server
/// devices …`): a token is shown once, when it is made, and only its SHA-256 is stored.
public struct UserStore: UserDirectory {
    let database: ServerDatabase

    /// The users of `database`.
    public init(database: ServerDatabase) {
        self.database = database
    }

    /// Adds user `name` with a first device token labelled ``DeviceAccount/firstLabel``, and
    /// returns the token (the only time it can be read).
    public func add(_ name: String, now: Int64) throws -> AccessToken {
        try add(name, device: DeviceAccount.firstLabel, now: now)
    }

    /// Adds user `name` with a first device token labelled `device`, and returns the token
    /// (the only time it can be read).
    public func add(_ name: String, device: String, now: Int64) throws -> AccessToken {
        let name = try AccountName.user(name)
        let label = try AccountName.device(device)
        let token = AccessToken.generate()
        try database.queue.write { db in
            if try db.fetchOne("SELECT 1 FROM users WHERE name = ?", name, row: { _ in true }) != nil {
                throw ServerStorageError.userExists(name)
            }
            // At the next ID never given (Migrations/Server/0005): a removed user's ID is never reused.
            try db.execute("""
                INSERT INTO users (id, name, feed, created_at)
                VALUES ((SELECT high + 1 FROM id_high_water WHERE name = 'users'), ?, randomblob(16), ?)
                """, name, now)
            try Self.insertToken(token, label: label, user: db.lastInsertedRowID, now: now, in: db)
        }
        return token
    }

    /// Ends every token of user `name` and forgets its devices, then gives it one new token
    /// labelled `device`.
    public func issueToken(for name: String, device: String, now: Int64) throws -> AccessToken {
        let name = try AccountName.user(name)
        let label = try AccountName.device(device)
        let token = AccessToken.generate()
        try database.queue.write { db in
            let user = try Self.userID(name, in: db)
            try db.execute("DELETE FROM device_tokens WHERE user = ?", user)
            try Self.insertToken(token, label: label, user: user, now: now, in: db)
        }
        return token
    }

    /// Ends every token of user `name` at once and forgets its devices; the user's
    /// favorites stay (``issueToken(for:device:now:)`` lets the user back in).
    public func revoke(_ name: String) throws {
        let name = try AccountName.user(name)
        try database.queue.write { db in
            try db.execute("DELETE FROM device_tokens WHERE user = ?", try Self.userID(name, in: db))
        }
    }

    /// Removes user `name`, its favorites, tokens and devices.
    public func remove(_ name: String) throws {
        let name = try AccountName.user(name)
        try database.queue.write { db in
            try db.execute("DELETE FROM users WHERE name = ?", name)
            guard db.changes > 0 else { throw ServerStorageError.noSuchUser(name) }
        }
    }

    /// Every user, by name.
    public func list() throws -> [UserAccount] {
        try database.queue.read { db in
            try db.fetchAll("""
                SELECT name, EXISTS (SELECT 1 FROM device_tokens t WHERE t.user = users.id), created_at,
                    (SELECT count(*) FROM user_favorites f WHERE f.user = users.id AND f.removed = 0),
                    (SELECT count(*) FROM user_devices d WHERE d.user = users.id)
                FROM users ORDER BY name
                """) { row in
                UserAccount(
                    name: try row.column(String.self, at: 0), hasToken: try row.int(at: 1) != 0,
                    favorites: try row.int(at: 3), devices: try row.int(at: 4), createdAt: try row.int64(at: 2))
            }
        }
    }

    /// Gives every user a new feed (``UserDirectory/renewFeeds()``).
    public func renewFeeds() throws -> Int {
        try database.queue.write { db in
            try db.execute("UPDATE users SET feed = randomblob(16)")
            return db.changes
        }
    }

    /// What this database has revoked (``UserDirectory/revocationRecord()``).
    public func revocationRecord() throws -> RevocationRecord {
        try database.queue.read { db in
            RevocationRecord(
                tokenHashes: Set(try db.fetchAll("SELECT token_hash FROM revoked_tokens") { try $0.column([UInt8].self, at: 0) }),
                removedUsers: Set(try db.fetchAll("SELECT id FROM removed_users") { try $0.int64(at: 0) }),
                userIDHighWater: try db.fetchOne("SELECT high FROM id_high_water WHERE name = 'users'") { try $0.int64(at: 0) } ?? 0)
        }
    }

    /// Keeps every revocation of `record` in this restored copy (``UserDirectory/restore(keeping:)``).
    public func restore(keeping record: RevocationRecord) throws -> RestoreOutcome {
        try database.queue.write { db in
            var revoked = 0, removed = 0
            // Each delete leaves its hash and ID in this copy's own record (the triggers).
            for hash in record.tokenHashes {
                try db.execute("DELETE FROM device_tokens WHERE token_hash = ?", hash)
                revoked += db.changes
                try db.execute("DELETE FROM sign_in_links WHERE token_hash = ?", hash)
                revoked += db.changes
                try db.execute("INSERT OR IGNORE INTO revoked_tokens (token_hash) VALUES (?)", hash)
            }
            for id in record.removedUsers {
                // The user's tokens and links go with it (ON DELETE CASCADE, and the triggers).
                try db.execute("DELETE FROM users WHERE id = ?", id)
                removed += db.changes
                try db.execute("INSERT OR IGNORE INTO removed_users (id) VALUES (?)", id)
            }
            try db.execute("UPDATE id_high_water SET high = max(high, ?) WHERE name = 'users'", record.userIDHighWater)
            try db.execute("UPDATE users SET feed = randomblob(16)")
            return RestoreOutcome(credentialsRevoked: revoked, usersRemoved: removed, users: db.changes)
        }
    }

    // MARK: - Devices

    /// A new token labelled `label` for one more device of user `user`.
    public func addDevice(_ label: String, of user: String, now: Int64) throws -> AccessToken {
        let name = try AccountName.user(user)
        let label = try AccountName.device(label)
        let token = AccessToken.generate()
        try database.queue.write { db in
            let id = try Self.userID(name, in: db)
            if try db.fetchOne("SELECT 1 FROM device_tokens WHERE user = ? AND label = ?", id, label, row: { _ in true }) != nil {
                throw ServerStorageError.deviceExists(user: name, label: label)
            }
            try Self.insertToken(token, label: label, user: id, now: now, in: db)
        }
        return token
    }

    /// User `user`'s tokens and the devices syncing with them, by label.
    public func devices(of user: String) throws -> [DeviceAccount] {
        let name = try AccountName.user(user)
        return try database.queue.snapshot { db in
            let id = try Self.userID(name, in: db)
            return try db.fetchAll("""
                SELECT t.label, t.created_at, t.shared,
                    CASE WHEN coalesce(d.device, t.device) IS NULL THEN NULL ELSE lower(hex(coalesce(d.device, t.device))) END,
                    d.last_seen, d.pulled, d.pushed,
                    CASE WHEN d.device IS NULL THEN 0 ELSE
                        (SELECT count(*) FROM user_favorites f WHERE f.user = t.user AND f.removed = 1 AND f.seq > d.pulled) END
                FROM device_tokens t LEFT JOIN user_devices d ON d.token = t.id
                WHERE t.user = ? ORDER BY t.label, d.device
                """, id) { row in
                DeviceAccount(
                    label: try row.column(String.self, at: 0), addedAt: try row.int64(at: 1), shared: try row.int(at: 2) != 0,
                    device: try row.column(String?.self, at: 3), lastSeen: try row.column(Int64?.self, at: 4),
                    pulled: try row.column(Int64?.self, at: 5), pushed: try row.column(Int64?.self, at: 6),
                    tombstonesHeld: try row.int(at: 7))
            } + db.fetchAll("""
                SELECT label, created_at, expires_at FROM sign_in_links WHERE user = ? AND expires_at > ? ORDER BY label
                """, id, WallClock.system()) { row in
                DeviceAccount(
                    label: try row.column(String.self, at: 0), addedAt: try row.int64(at: 1), shared: false, device: nil, lastSeen: nil,
                    pulled: nil, pushed: nil, tombstonesHeld: 0, pendingLinkUntil: try row.int64(at: 2))
            }
        }
    }

    /// Ends the token labelled `label` of user `user` at once and forgets the devices that
    /// sync with it (`ON DELETE CASCADE`), and cancels the label's sign-in links not used yet.
    public func revokeDevice(_ label: String, of user: String) throws {
        let name = try AccountName.user(user)
        let label = try AccountName.device(label)
        try database.queue.write { db in
            let id = try Self.userID(name, in: db)
            try db.execute("DELETE FROM device_tokens WHERE user = ? AND label = ?", id, label)
            var ended = db.changes
            try db.execute("DELETE FROM sign_in_links WHERE user = ? AND label = ?", id, label)
            ended += db.changes
            guard ended > 0 else { throw ServerStorageError.noSuchDevice(user: name, label: label) }
        }
    }

    // MARK: - Tokens

    /// The user and device token whose token is `token`, or `nil` (unknown, or a browser's
    /// session past its end at `now`, Unix milliseconds). The database finds the row by the
    /// token's hash; the hashes are then compared in constant time.
    public func authenticate(_ token: AccessToken, now: Int64) throws -> AuthenticatedUser? {
        let hash = token.hash
        return try database.queue.read { db in
            try db.fetchOne("""
                SELECT u.id, u.name, u.feed, t.token_hash, t.id, t.label, t.device, t.expires_at IS NOT NULL
                FROM device_tokens t JOIN users u ON u.id = t.user
                WHERE t.token_hash = ? AND (t.expires_at IS NULL OR t.expires_at > ?)
                """, hash, now) { row -> AuthenticatedUser? in
                let stored = row.withBlob(at: 3) { Array($0) }
                guard AccessToken.constantTimeEqual(stored, hash),
                      let feed = FeedID(bytes: row.withBlob(at: 2) { Array($0) })
                else { return nil }
                return AuthenticatedUser(
                    id: try row.int64(at: 0), name: try row.column(String.self, at: 1), feed: feed,
                    token: try row.int64(at: 4), device: try row.column(String.self, at: 5),
                    boundDevice: row.isNull(at: 6) ? nil : DeviceID(bytes: row.withBlob(at: 6) { Array($0) }),
                    isBrowserSession: try row.int(at: 7) != 0)
            } ?? nil
        }
    }

    /// Which of `identities` still hold at `now` (``SyncBackend/stillValid(_:)``): the
    /// token's row exists, has not ended, and belongs to the same user, whose feed is the
    /// same. One query, whatever the number of streams.
    public func stillValid(_ identities: Set<StreamIdentity>, now: Int64) throws -> Set<StreamIdentity> {
        guard !identities.isEmpty else { return [] }
        let ids = "[" + identities.map { String($0.token) }.joined(separator: ",") + "]"
        let rows = try database.queue.read { db in
            try db.fetchAll("""
                SELECT t.id, t.user, u.feed FROM device_tokens t JOIN users u ON u.id = t.user
                WHERE t.id IN (SELECT value FROM json_each(?)) AND (t.expires_at IS NULL OR t.expires_at > ?)
                """, ids, now) { row -> StreamIdentity? in
                guard let feed = FeedID(bytes: row.withBlob(at: 2) { Array($0) }) else { return nil }
                return StreamIdentity(token: try row.int64(at: 0), user: try row.int64(at: 1), feed: feed)
            }
        }
        return identities.intersection(rows.compactMap(\.self))
    }

    // MARK: - Sign-in links

    /// A one-time sign-in link's secret for a new device of user `user` labelled `label`,
    /// working until `expiresAt` (Unix milliseconds). Refused when the user has a device
    /// labelled so already. The user's links past their end are deleted on the way.
    public func createSignInLink(for user: String, label: String, now: Int64, expiresAt: Int64) throws -> AccessToken {
        let name = try AccountName.user(user)
        let label = try AccountName.device(label)
        let secret = AccessToken.generate()
        try database.queue.write { db in
            let id = try Self.userID(name, in: db)
            if try db.fetchOne("SELECT 1 FROM device_tokens WHERE user = ? AND label = ?", id, label, row: { _ in true }) != nil {
                throw ServerStorageError.deviceExists(user: name, label: label)
            }
            try db.execute("DELETE FROM sign_in_links WHERE user = ? AND expires_at <= ?", id, now)
            try db.execute(
                "INSERT INTO sign_in_links (user, label, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                id, label, secret.hash, now, expiresAt)
        }
        return secret
    }

    /// Uses the sign-in link whose secret is `secret`: in one transaction the link is
    /// deleted (it signs in once, whatever the outcome) and, when it had not expired at
    /// `now` and its label is still free, `session` becomes the token of a new device of its
    /// user, bound to `device`, working until `sessionEnd`.
    public func redeemSignInLink(_ secret: AccessToken, device: DeviceID, session: AccessToken, sessionEnd: Int64, now: Int64) throws -> SignInOutcome {
        let hash = secret.hash
        return try database.queue.write { db in
            guard let (link, user, name, label, expiresAt) = try db.fetchOne("""
                SELECT l.id, l.user, u.name, l.label, l.expires_at, l.token_hash FROM sign_in_links l JOIN users u ON u.id = l.user
                WHERE l.token_hash = ?
                """, hash, row: { row in
                    AccessToken.constantTimeEqual(row.withBlob(at: 5) { Array($0) }, hash)
                        ? (try row.int64(at: 0), try row.int64(at: 1), try row.column(String.self, at: 2),
                           try row.column(String.self, at: 3), try row.int64(at: 4))
                        : nil
                }) ?? nil
            else { return .refused }
            try db.execute("DELETE FROM sign_in_links WHERE id = ?", link)
            guard expiresAt > now else { return .refused }
            if try db.fetchOne("SELECT 1 FROM device_tokens WHERE user = ? AND label = ?", user, label, row: { _ in true }) != nil {
                return .labelTaken(user: name, label: label)
            }
            try db.execute("""
                INSERT INTO device_tokens (user, label, token_hash, device, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
                """, user, label, session.hash, device.bytes, now, sessionEnd)
            return .signedIn(user: name, label: label)
        }
    }

    /// Whom the sign-in link `secret` signs in as at `now`, without using it; `nil` when it
    /// is not a link that works.
    public func signInTarget(of secret: AccessToken, now: Int64) throws -> SignInTarget? {
        let hash = secret.hash
        return try database.queue.read { db in
            try db.fetchOne("""
                SELECT u.name, l.label, l.token_hash FROM sign_in_links l JOIN users u ON u.id = l.user
                WHERE l.token_hash = ? AND l.expires_at > ?
                """, hash, now, row: { row in
                    AccessToken.constantTimeEqual(row.withBlob(at: 2) { Array($0) }, hash)
                        ? SignInTarget(user: try row.column(String.self, at: 0), label: try row.column(String.self, at: 1)) : nil
                }) ?? nil
        }
    }

    /// Ends the session (the device token) `user` signed in with, and forgets its device.
    public func endSession(_ user: AuthenticatedUser) throws {
        try database.queue.write { db in
            try db.execute("DELETE FROM device_tokens WHERE id = ? AND user = ?", user.token, user.id)
        }
    }

    /// Whether `user`'s token serves `device` (``DeviceBinding``), binding it on its first
    /// sync; in the caller's transaction. Throws ``ServerStorageError/noSuchUser(_:)`` when
    /// the token was revoked since it was checked (answered as any refused token), and
    /// ``ServerStorageError/tokenOfAnotherDevice(user:label:)`` when it does not serve `device`.
    static func admit(_ device: DeviceID, for user: AuthenticatedUser, in db: Database) throws {
        guard let (bound, shared, taken) = try db.fetchOne("""
            SELECT device, shared, EXISTS (SELECT 1 FROM device_tokens o WHERE o.user = t.user AND o.device = ?1 AND o.id <> t.id)
            FROM device_tokens t WHERE t.id = ?2 AND t.user = ?3
            """, device.bytes, user.token, user.id, row: { row in
                (row.isNull(at: 0) ? nil : DeviceID(bytes: row.withBlob(at: 0) { Array($0) }), try row.int(at: 1) != 0, try row.int(at: 2) != 0)
            })
        else { throw ServerStorageError.noSuchUser(user.name) }
        switch DeviceBinding.decide(device: device, bound: bound, shared: shared, takenByAnother: taken) {
        case .admitted: break
        case .bind: try db.execute("UPDATE device_tokens SET device = ? WHERE id = ? AND device IS NULL", device.bytes, user.token)
        case .refused: throw ServerStorageError.tokenOfAnotherDevice(user: user.name, label: user.device)
        }
    }

    private static func insertToken(_ token: AccessToken, label: String, user: Int64, now: Int64, in db: Database) throws {
        try db.execute("INSERT INTO device_tokens (user, label, token_hash, created_at) VALUES (?, ?, ?, ?)", user, label, token.hash, now)
    }

    private static func userID(_ name: String, in db: Database) throws -> Int64 {
        guard let id = try db.fetchOne("SELECT id FROM users WHERE name = ?", name, row: { try $0.int64(at: 0) }) else {
            throw ServerStorageError.noSuchUser(name)
        }
        return id
    }
}
