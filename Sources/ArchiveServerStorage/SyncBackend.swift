public import ArchiveSyncWire
public import ArchiveSyncModel

/// Where the service keeps its users' favorites: the embedded SQLite engine
/// (``SQLiteSyncBackend``), or PostgreSQL. Every method is scoped to one authenticated
/// user; none can read or write another's favorites.
public protocol SyncBackend: Sendable {
    /// The user whose token is `token`, or `nil` (unknown, revoked, or the user removed).
    func authenticate(_ token: AccessToken) async throws -> AuthenticatedUser?

    /// Merges `changes` (checked, one per favorite) from `device` into `user`'s favorites by
    /// ``FavoriteMerge``, in one transaction, and records that `device` pushed its feed
    /// through `through`. Idempotent: the same push again changes nothing. Refused with
    /// ``ServerStorageError/stalePush(seen:collected:)``, nothing written, when the device
    /// made it having pulled only to `seen`, before tombstones the service has dropped.
    func push(_ changes: [FavoriteChange], from device: DeviceID, through: Int64, seen: Int64, for user: AuthenticatedUser) async throws -> SyncPushResponse

    /// Up to `limit` changes of `user`'s feed after `cursor` (fewer when they pass
    /// ``SyncAPI/maximumPageBytes``), recording that `device` has applied the feed through
    /// `cursor` (what it asks from, never what the answer sends, which may be lost); a
    /// tombstone every device of the user has applied is dropped. A `limit` of 0 reads
    /// nothing: it answers the feed and `pushed`. Throws
    /// ``ServerStorageError/noSuchUser(_:)`` when the user is gone (removed, or removed and
    /// another added) since its token was checked.
    func pull(for user: AuthenticatedUser, device: DeviceID, after cursor: Int64, limit: Int) async throws -> SyncPullResponse

    // MARK: - The web page (docs/WEB.md)

    /// Uses the sign-in link whose secret is `secret` (``UserStore/redeemSignInLink(_:device:session:sessionEnd:now:)``
    /// says how): a good one makes `session` the token of a new device bound to `device`,
    /// working until `sessionEnd` (Unix milliseconds).
    func redeemSignInLink(_ secret: AccessToken, device: DeviceID, session: AccessToken, sessionEnd: Int64) async throws -> SignInOutcome
    /// Whom the sign-in link `secret` signs in as, without using it; `nil` when it is not a
    /// link that works now (never made, used, past its end).
    func signInTarget(of secret: AccessToken) async throws -> SignInTarget?

    /// Ends the session `user` signed in with (its device token), and forgets its device.
    func endSession(_ user: AuthenticatedUser) async throws

    /// Up to `limit` of `user`'s stored favorites, newest first, starting after `after`;
    /// with a non-empty `matching`, only those whose dish, shop, category or introduction
    /// holds it (letters compared ignoring ASCII case), looked for among the next `window`
    /// favorites only: a search costs at most `window` rows a page, and a page that reached
    /// the window's end before `limit` matches says so (``FavoritesPage/partial``) and goes on
    /// after it.
    func favorites(of user: AuthenticatedUser, matching: String, after: FavoritesPosition?, limit: Int, window: Int) async throws -> FavoritesPage

    /// What `user`'s favorites hold for `ids` (stored or removed, with its stamp), and where
    /// the user's feed stands.
    func held(_ ids: [Int], of user: AuthenticatedUser) async throws -> HeldFavorites

    /// Which of `identities` (the open event streams') still hold: the token not revoked nor
    /// past its end, its user the same (not removed), the user's feed the same (not renewed).
    /// The others' streams are ended (``StreamAudit``).
    func stillValid(_ identities: Set<StreamIdentity>) async throws -> Set<StreamIdentity>

    /// Whether the backend answers.
    func isHealthy() async -> Bool

    /// The most file descriptors the backend holds beyond a handful (a pool's connections),
    /// kept out of the connections the server accepts (``DescriptorBudget``).
    var descriptorsKept: Int { get }

    /// How this backend's servers tell each other of feed moves, when several may serve it
    /// (PostgreSQL); `nil` when it is one process by construction.
    var feedBroadcast: (any FeedBroadcast)? { get }
}

extension SyncBackend {
    /// SQLite's few files fit in the server's base reserve.
    public var descriptorsKept: Int { 0 }

    /// None: a backend that is one process by construction (SQLite) has no other server to tell.
    public var feedBroadcast: (any FeedBroadcast)? { nil }
}
