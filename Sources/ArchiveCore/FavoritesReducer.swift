import ArchiveStorage

/// The Favorites view's pure reducer.
public enum FavoritesReducer {
    /// Applies `action` to `state`.
    public static func reduce(_ state: inout FavoritesState, _ action: FavoritesAction) {
        switch action {
        case .requestPage, .requestNextPage, .refresh:
            state.isLoading = true
            state.errorMessage = nil
        case .search(let query, _, _):
            state.query = query
            state.isLoading = true
            state.errorMessage = nil
        case .pageLoaded(let page, let query, let appending, let totalCount):
            // A page of another query than the one now asked (the user typed on) is
            // dropped: its search was cancelled, and this answer raced the cancellation.
            guard query == state.query else { return }
            state.favorites = appending ? state.favorites + page : Array(page)
            state.nextCursor = page.nextCursor
            state.totalCount = totalCount
            state.isLoading = false
            state.hasLoaded = true
        case .failure(let message):
            state.isLoading = false
            state.errorMessage = message
        }
    }

    /// The favorite `id` was unstored (from any screen): its row leaves the loaded
    /// favorites and the total drops by one, so the view never shows what is no longer stored.
    public static func favoriteUnstored(id: Int, in state: inout FavoritesState) {
        let before = state.favorites.count
        state.favorites.removeAll { $0.id == id }
        if state.favorites.count < before { state.totalCount = state.totalCount.map { max(0, $0 - 1) } }
    }
}
