public import Redux
import ArchiveStorage

/// The Favorites view's side effects: loads pages through the favorites repository.
public enum FavoritesMiddleware {
    /// The page load: a newer request replaces the one in flight.
    public static let pageEffectID: EffectID = "favorites.page"

    /// On a page request or a search: reads the page of the state's query and how
    /// many match (one snapshot), then dispatches them.
    public static func page(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let favorites = environment.storedArchiveDataRepository
        return Middleware { state, action in
            let query = state.favoritesState.query  // the reducer has already set a search's query
            let cursor: StoredArchivePageCursor?
            let limit: Int
            switch action {
            case .favorites(.requestPage(let after, let pageLimit)), .favorites(.search(_, let after, let pageLimit)):
                (cursor, limit) = (after, pageLimit)
            case .favorites(.requestNextPage(let pageLimit)):
                guard let next = state.favoritesState.nextCursor else {
                    return .run { send in await send(.favorites(.failure(message: "there is no next page"))) }
                }
                (cursor, limit) = (next, pageLimit)
            case .favorites(.refresh(let minimumLimit)):
                (cursor, limit) = (nil, min(max(state.favoritesState.favorites.count, minimumLimit, 1), StoredArchivePage.maximumLimit))
            default:
                return .none
            }
            return .run(.cancelInFlight(pageEffectID)) { send in
                do {
                    let result = try favorites.search(query, after: cursor, limit: limit)
                    try Task.checkCancellation()
                    await send(.favorites(.pageLoaded(result.page, query: query, appending: cursor != nil, totalCount: result.matchCount)))
                } catch {
                    if error is CancellationError || Task.isCancelled { return }
                    await send(.favorites(.failure(message: "cannot read favorites: \(error)")))
                }
            }
        }
    }
}
