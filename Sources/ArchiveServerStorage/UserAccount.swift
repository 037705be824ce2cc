/// One user of the service, as `archive-server users list` shows it.
public struct UserAccount: Sendable, Hashable, Codable {
    /// The user's name.
    public let name: String
    /// Whether the user has a token that works (not revoked).
    public let hasToken: Bool
    /// How many favorites the user has stored.
    public let favorites: Int
    /// How many devices have synced.
    public let devices: Int
    /// When the user was added, in milliseconds since 1970.
    public let createdAt: Int64

    /// A user as a storage backend reads it.
    package init(name: String, hasToken: Bool, favorites: Int, devices: Int, createdAt: Int64) {
        self.name = name
        self.hasToken = hasToken
        self.favorites = favorites
        self.devices = devices
        self.createdAt = createdAt
    }
}
