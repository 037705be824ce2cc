public import ArchiveStorage

/// What can happen in the Favorites view.
public enum FavoritesAction: Sendable, Equatable {
    /// Load the first page (`after: nil`, replacing what is loaded) or the page
    /// after a cursor, of the favorites matching the state's query.
    case requestPage(after: StoredArchivePageCursor?, limit: Int)
    /// Search the favorites: make `query` the state's query (an empty one lists
    /// them all) and load its first page, or the page after `after`.
    case search(FavoritesQuery, after: StoredArchivePageCursor?, limit: Int)
    /// Load the page after the last one loaded, if any.
    case requestNextPage(limit: Int)
    /// Reload from the newest, as many as are loaded now (at least one page).
    case refresh(minimumLimit: Int)
    /// A page of `query` arrived, with how many favorites match in all (`nil`
    /// when a keyword matches too many to count them without reading them all).
    case pageLoaded(StoredArchivePage, query: FavoritesQuery, appending: Bool, totalCount: Int?)
    /// Loading failed.
    case failure(message: String)
}
