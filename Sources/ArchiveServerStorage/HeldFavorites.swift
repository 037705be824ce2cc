public import ArchiveSyncModel

/// What a user's favorites hold for some IDs, and where the user's feed stands: the web
/// page merges search results with it (a dish's heart), and stamps a heart later than it.
public struct HeldFavorites: Sendable, Hashable {
    /// The state held for each ID asked (stored or removed, with its stamp); an ID never
    /// stored is absent.
    public var changes: [Int: FavoriteChange]
    /// The user's feed position (its last seq) when it was read.
    public var position: Int64
    /// When a device of the user last pushed or pulled (milliseconds since 1970), or `nil`.
    public var lastSync: Int64?

    /// What a storage backend read.
    public init(changes: [Int: FavoriteChange], position: Int64, lastSync: Int64?) {
        self.changes = changes
        self.position = position
        self.lastSync = lastSync
    }
}
