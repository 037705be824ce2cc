public import ArchiveSyncModel

/// The user a request's token belongs to: every read and write of the request is scoped to
/// it, and its device ID must be one the token serves (``DeviceBinding``).
public struct AuthenticatedUser: Sendable, Hashable {
    /// The user's row.
    public let id: Int64
    /// The user's name (for logs).
    public let name: String
    /// The user's change feed.
    public let feed: FeedID
    /// The device token's row.
    public let token: Int64
    /// The device token's label (for logs).
    public let device: String
    /// The device ID the token is bound to (``DeviceBinding``), or `nil` before its first
    /// sync: a browser's session is bound from its start, and its hearts are that device's.
    public let boundDevice: DeviceID?
    /// Whether the token is a browser's session (made by a sign-in link, with an end): only
    /// such a token signs a web page in.
    public let isBrowserSession: Bool

    /// The user `id` named `name`, whose change feed is `feed`, signed in with token row
    /// `token` labelled `device`, bound to `boundDevice` (made by a storage backend once the
    /// token is checked).
    package init(id: Int64, name: String, feed: FeedID, token: Int64, device: String, boundDevice: DeviceID? = nil, isBrowserSession: Bool = false) {
        self.id = id
        self.name = name
        self.feed = feed
        self.token = token
        self.device = device
        self.boundDevice = boundDevice
        self.isBrowserSession = isBrowserSession
    }
}
