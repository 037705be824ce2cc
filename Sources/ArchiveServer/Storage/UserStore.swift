import ArchiveStorage
import SQLite

/// The service's users and their tokens (`archive-server users …`): a token is shown once,
/// when it is made, and only its SHA-256 is stored.
public struct UserStore: UserDirectory {
    let database: ServerDatabase

    /// The users of `database`.
    public init(database: ServerDatabase) {
        self.database = database
    }

    /// Adds user `name` and returns its new token (the only time it can be read).
    public func add(_ name: String, now: Int64) throws -> AccessToken {
        let name = try Self.canonicalName(name)
        let token = AccessToken.generate()
        try database.queue.write { db in
            if try db.fetchOne("SELECT 1 FROM users WHERE name = ?", name, row: { _ in true }) != nil {
                throw ServerStorageError.userExists(name)
            }
            try db.execute(
                "INSERT INTO users (name, token_hash, feed, created_at) VALUES (?, ?, randomblob(16), ?)",
                name, token.hash, now)
        }
        return token
    }

    /// Gives user `name` a new token; the previous one stops working.
    public func issueToken(for name: String) throws -> AccessToken {
        let name = try Self.canonicalName(name)
        let token = AccessToken.generate()
        try database.queue.write { db in
            try db.execute("UPDATE users SET token_hash = ? WHERE name = ?", token.hash, name)
            guard db.changes > 0 else { throw ServerStorageError.noSuchUser(name) }
        }
        return token
    }

    /// Revokes user `name`'s token: requests with it are refused from now on; the user's
    /// favorites stay (``issueToken(for:)`` lets the user back in).
    public func revoke(_ name: String) throws {
        let name = try Self.canonicalName(name)
        try database.queue.write { db in
            try db.execute("UPDATE users SET token_hash = NULL WHERE name = ?", name)
            guard db.changes > 0 else { throw ServerStorageError.noSuchUser(name) }
        }
    }

    /// Removes user `name`, its favorites and its devices.
    public func remove(_ name: String) throws {
        let name = try Self.canonicalName(name)
        try database.queue.write { db in
            try db.execute("DELETE FROM users WHERE name = ?", name)
            guard db.changes > 0 else { throw ServerStorageError.noSuchUser(name) }
        }
    }

    /// Every user, by name.
    public func list() throws -> [UserAccount] {
        try database.queue.read { db in
            try db.fetchAll("""
                SELECT name, token_hash IS NOT NULL, created_at,
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

    /// The user whose token is `token`, or `nil`. The database finds the row by the
    /// token's hash; the hashes are then compared in constant time.
    public func authenticate(_ token: AccessToken) throws -> AuthenticatedUser? {
        let hash = token.hash
        return try database.queue.read { db in
            try db.fetchOne("SELECT id, name, feed, token_hash FROM users WHERE token_hash = ?", hash) { row -> AuthenticatedUser? in
                let stored = row.withBlob(at: 3) { Array($0) }
                guard AccessToken.constantTimeEqual(stored, hash),
                      let feed = DeviceID(bytes: row.withBlob(at: 2) { Array($0) })
                else { return nil }
                return AuthenticatedUser(id: try row.int64(at: 0), name: try row.column(String.self, at: 1), feed: feed)
            } ?? nil
        }
    }

    /// The name as stored: `name` in lower case (names ignore case: `Alice` is `alice`).
    /// Refuses a name that is not 1 to 64 of `A–Z a–z 0–9 . _ -`, or has no letter or digit
    /// (`.`, `..`, `-`).
    public static func canonicalName(_ name: String) throws -> String {
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
        let allowed = name.utf8.allSatisfy { byte in
            isLetterOrDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard (1...64).contains(name.utf8.count), allowed, name.utf8.contains(where: isLetterOrDigit) else {
            throw ServerStorageError.invalidUserName(name)
        }
        return name.lowercased()
    }
}
