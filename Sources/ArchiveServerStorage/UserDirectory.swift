/// The service's users and their devices' tokens, wherever the service keeps them: the
/// embedded database (``UserStore``) or PostgreSQL. `archive-server users …` and
/// `archive-server devices …` run through it. A token is shown once, when it is made; only
/// its SHA-256 is kept.
public protocol UserDirectory: Sendable {
    /// Adds user `name` with a first device token labelled `device`, and returns the token.
    func add(_ name: String, device: String, now: Int64) async throws -> AccessToken
    /// Ends every token of user `name` and its devices, and gives it one new token labelled
    /// `device` (a lost token: every device signs in again).
    func issueToken(for name: String, device: String, now: Int64) async throws -> AccessToken
    /// Ends every token of user `name` and forgets its devices; the user's favorites stay.
    func revoke(_ name: String) async throws
    /// Removes user `name`, its favorites, tokens and devices.
    func remove(_ name: String) async throws
    /// Every user, by name.
    func list() async throws -> [UserAccount]

    /// A new token labelled `label` for one more device of user `user`.
    func addDevice(_ label: String, of user: String, now: Int64) async throws -> AccessToken
    /// User `user`'s tokens and the devices syncing with them, by label.
    func devices(of user: String) async throws -> [DeviceAccount]
    /// Gives every user a new feed, and returns how many users there are: after a backup is
    /// put back in place, each device reads its user's feed again from its start (its
    /// cursor named the old feed, whose later positions the restored copy will give out
    /// again), then sends what the copy lacks. Run it with the service stopped.
    func renewFeeds() async throws -> Int
    /// What this database has revoked (``RevocationRecord``), to carry into a copy that
    /// replaces it.
    func revocationRecord() async throws -> RevocationRecord
    /// Makes this database, an older copy put back in place, keep every revocation of
    /// `record` (the database it replaces): the credentials and users `record` names are
    /// deleted here, no user ID at or below its high water is given again, and every user
    /// gets a new feed (``renewFeeds()``), in one transaction. Run it with the service stopped.
    func restore(keeping record: RevocationRecord) async throws -> RestoreOutcome

    /// A one-time sign-in link's secret for a new device of user `user` labelled `label`
    /// (`archive-server devices link`), working until `expiresAt` (Unix milliseconds).
    func createSignInLink(for user: String, label: String, now: Int64, expiresAt: Int64) async throws -> AccessToken

    /// Ends the token labelled `label` of user `user` at once and forgets the devices that
    /// sync with it: removals they had not pulled stop being kept for them.
    func revokeDevice(_ label: String, of user: String) async throws
}
