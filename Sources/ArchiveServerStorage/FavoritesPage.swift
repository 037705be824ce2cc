public import ArchiveSyncModel

/// One page of a user's stored favorites, newest first (the web page's Favorites screen).
public struct FavoritesPage: Sendable, Hashable {
    /// The favorites, newest first.
    public var favorites: [StoredArchiveObject]
    /// Where the next page starts, or `nil` when this one reaches the oldest.
    public var next: FavoritesPosition?
    /// Whether a search stopped at the end of the favorites it may look through in one page
    /// (its window) before it found a page of matches: older favorites, after ``next``, were
    /// not searched yet.
    public var partial: Bool
    /// The user's feed position (its last seq): it moves with every change that lands.
    public var position: Int64
    /// When a device of the user last pushed or pulled (milliseconds since 1970), or `nil`
    /// when none has: the page's sync state.
    public var lastSync: Int64?

    /// A page as a storage backend reads it.
    public init(favorites: [StoredArchiveObject], next: FavoritesPosition?, partial: Bool = false, position: Int64, lastSync: Int64?) {
        self.favorites = favorites
        self.next = next
        self.partial = partial
        self.position = position
        self.lastSync = lastSync
    }
}
