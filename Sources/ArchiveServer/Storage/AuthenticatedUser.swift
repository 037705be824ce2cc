public import ArchiveStorage

/// The user a request's token belongs to: every read and write of the request is scoped to it.
public struct AuthenticatedUser: Sendable, Hashable {
    /// The user's row.
    public let id: Int64
    /// The user's name (for logs).
    public let name: String
    /// The user's change feed.
    public let feed: DeviceID

    /// The user `id` named `name`, whose change feed is `feed` (made by a storage backend
    /// once the user's token is checked).
    package init(id: Int64, name: String, feed: DeviceID) {
        self.id = id
        self.name = name
        self.feed = feed
    }
}
