/// What a service's database has revoked, as `archive-server restore` carries it from the
/// database it replaces into the older copy put in its place (docs/OPERATIONS.md, "Backups"):
/// a copy made before a revocation still holds the credential, and would let it in again.
///
/// Kept by the database's own triggers (`revoked_tokens`, `removed_users`; migrations
/// `0006_revocations_outlive_restores` of the embedded database, `0005` of PostgreSQL's), so
/// that every path that ends a credential records it.
public struct RevocationRecord: Sendable, Hashable {
    /// The SHA-256 of every credential that stopped working: device tokens revoked or
    /// replaced, browsers signed out, sign-in links used or expired, a removed user's tokens.
    public var tokenHashes: Set<[UInt8]>
    /// The ID of every removed user.
    public var removedUsers: Set<Int64>
    /// The highest user ID ever given: the copy gives none at or below it again (a removed
    /// user's ID keys open streams; ``UserStore/add(_:device:now:)``).
    public var userIDHighWater: Int64

    /// A record of `tokenHashes`, `removedUsers` and `userIDHighWater`.
    public init(tokenHashes: Set<[UInt8]> = [], removedUsers: Set<Int64> = [], userIDHighWater: Int64 = 0) {
        self.tokenHashes = tokenHashes
        self.removedUsers = removedUsers
        self.userIDHighWater = userIDHighWater
    }
}
