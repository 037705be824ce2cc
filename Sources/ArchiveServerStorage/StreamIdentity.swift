public import ArchiveSyncModel

/// Who an open event stream listens as: the device token it was opened with, its user and
/// the user's feed when it was opened. Each is a key the service never gives again (token
/// and user rows are never reused, on either backend; a feed is 16 random bytes, new when
/// the user's feeds are renewed after a restore), so a stream whose identity no longer
/// holds (``SyncBackend/stillValid(_:)``) is ended: its token revoked, its session ended,
/// its user removed, its feed renewed.
public struct StreamIdentity: Sendable, Hashable {
    /// The device token's row.
    public let token: Int64
    /// The user's row.
    public let user: Int64
    /// The user's feed.
    public let feed: FeedID

    /// The identity of a stream opened as `user`.
    public init(_ user: AuthenticatedUser) {
        self.init(token: user.token, user: user.id, feed: user.feed)
    }

    /// The identity of token row `token` of user row `user`, whose feed is `feed`.
    public init(token: Int64, user: Int64, feed: FeedID) {
        self.token = token
        self.user = user
        self.feed = feed
    }
}
