public import Redux
import ArchiveStorage

/// The Favorites view's pure reducer.
public enum FavoritesReducer {
    /// The reducer as a value for the store.
    public static let reducer = Reducer<FavoritesState, FavoritesAction>(reduce)

    /// Applies `action` to `state`.
    public static func reduce(_ state: inout FavoritesState, _ action: FavoritesAction) {
        switch action {
        case .requestPage, .requestNextPage, .refresh:
            state.isLoading = true
            state.errorMessage = nil
        case .pageLoaded(let page, let appending, let totalCount):
            state.favorites = appending ? state.favorites + page.objects : page.objects
            state.nextCursor = page.nextCursor
            state.totalCount = totalCount
            state.isLoading = false
            state.hasLoaded = true
        case .failure(let message):
            state.isLoading = false
            state.errorMessage = message
        }
    }

    /// Keeps the loaded favorites truthful when a favorite is unstored through the Archive actions.
    static func reduce(_ state: inout FavoritesState, _ action: ArchiveAction) {
        guard case .deleteArchiveObjectSucceeded(let id, let wasStored) = action, wasStored else { return }
        let before = state.favorites.count
        state.favorites.removeAll { $0.id == id }
        if state.favorites.count < before { state.totalCount = max(0, state.totalCount - 1) }
    }
}
