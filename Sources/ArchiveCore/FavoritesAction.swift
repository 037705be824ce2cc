public import ArchiveStorage

/// What can happen in the Favorites view.
public enum FavoritesAction: Sendable, Equatable {
    /// Load the first page (`after: nil`, replacing what is loaded) or the page after a cursor.
    case requestPage(after: StoredArchivePageCursor?, limit: Int)
    /// Load the page after the last one loaded, if any.
    case requestNextPage(limit: Int)
    /// Reload from the newest, as many as are loaded now (at least one page).
    case refresh(minimumLimit: Int)
    /// A page arrived, with the total count.
    case pageLoaded(StoredArchivePage, appending: Bool, totalCount: Int)
    /// Loading failed.
    case failure(message: String)
}
