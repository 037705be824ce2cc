/// One device token of a user and the device syncing with it, as `archive-server devices
/// list USER` shows it: a shared token (from before device tokens) has a row per device
/// using it; a token no device has synced with yet has one row without a device.
public struct DeviceAccount: Sendable, Hashable, Codable {
    /// The label of a user's first device token when none is given (`users add NAME`).
    public static let firstLabel = "first"
    /// The label migrated tokens get: the one token a user's devices shared before device tokens.
    public static let sharedLabel = "shared"

    /// The token's label (`devices add USER LABEL`).
    public let label: String
    /// When the token was made, in milliseconds since 1970.
    public let addedAt: Int64
    /// Whether it is a user's shared token from before device tokens (it binds no device).
    public let shared: Bool
    /// The device ID syncing with it, or the token is bound to (32 hexadecimal digits), or
    /// `nil` before its first request.
    public let device: String?
    /// When that device last pushed or pulled changes, in milliseconds since 1970 (`nil`:
    /// none yet, though its first request may have bound the token).
    public let lastSeen: Int64?
    /// How far the device has pulled the user's feed (its cursor).
    public let pulled: Int64?
    /// How far the service has the device's own feed.
    public let pushed: Int64?
    /// Removals the device has not pulled yet: the service keeps them for it.
    public let tombstonesHeld: Int
    /// When the label is a sign-in link not used yet (`devices link`), not a token: when it
    /// stops working (Unix milliseconds). `devices revoke` cancels it.
    public let pendingLinkUntil: Int64?

    /// A device as a storage backend reads it.
    package init(
        label: String, addedAt: Int64, shared: Bool, device: String?, lastSeen: Int64?, pulled: Int64?, pushed: Int64?, tombstonesHeld: Int,
        pendingLinkUntil: Int64? = nil
    ) {
        self.pendingLinkUntil = pendingLinkUntil
        self.label = label
        self.addedAt = addedAt
        self.shared = shared
        self.device = device
        self.lastSeen = lastSeen
        self.pulled = pulled
        self.pushed = pushed
        self.tombstonesHeld = tombstonesHeld
    }
}
