/// What `archive-server restore` did to the copy it put in place.
public struct RestoreOutcome: Sendable, Hashable, Codable {
    /// Credentials of the copy that had been revoked since it was made, now deleted.
    public var credentialsRevoked: Int
    /// Users of the copy that had been removed since it was made, now removed again.
    public var usersRemoved: Int
    /// Users in the copy, each given a new feed (``UserDirectory/renewFeeds()``).
    public var users: Int

    /// An outcome of these counts.
    public init(credentialsRevoked: Int, usersRemoved: Int, users: Int) {
        self.credentialsRevoked = credentialsRevoked
        self.usersRemoved = usersRemoved
        self.users = users
    }
}
