public import ArchiveStorage

/// The Favorites view: stored favorites matching its query, newest first,
/// loaded a page at a time.
public struct FavoritesState: Sendable, Equatable {
    /// What the view lists: every favorite (the empty query) or a search's matches.
    public var query = FavoritesQuery()
    /// The favorites loaded so far, newest first: the pages' rows, which keep
    /// the bytes SQLite returned and decode a text only where a front reads it.
    public var favorites: [StoredArchiveRow] = []
    /// Where the next page starts, `nil` once the last page is loaded.
    public var nextCursor: StoredArchivePageCursor?
    /// How many favorites the query matches in all (as of the last page load);
    /// `nil` when a keyword matches too many to count.
    public var totalCount: Int? = 0
    /// A page load is in flight.
    public var isLoading = false
    /// Whether a page has been loaded since the view was opened.
    public var hasLoaded = false
    /// Why the last page load failed.
    public var errorMessage: String?

    /// Nothing loaded.
    public init() {}

    /// Whether more pages can be loaded.
    public var hasMore: Bool { nextCursor != nil }
}
