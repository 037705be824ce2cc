/// The service's users and their tokens, wherever the service keeps them: the embedded
/// database (``UserStore``) or PostgreSQL. `archive-server users …` runs through it.
public protocol UserDirectory: Sendable {
    /// Adds user `name` and returns its new token (the only time it can be read).
    func add(_ name: String, now: Int64) async throws -> AccessToken
    /// Gives user `name` a new token; the previous one stops working.
    func issueToken(for name: String) async throws -> AccessToken
    /// Revokes user `name`'s token; the user's favorites stay.
    func revoke(_ name: String) async throws
    /// Removes user `name`, its favorites and its devices.
    func remove(_ name: String) async throws
    /// Every user, by name.
    func list() async throws -> [UserAccount]
}
