public import Redux
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArchiveAPI
import ArchiveStorage
import ArchiveSyncModel

/// The Archive screen's side effects: search, store, unstore, refresh.
public enum ArchiveMiddleware {
    /// The search effect: a newer search cancels the one in flight, whose results are dropped.
    public static let searchEffectID: EffectID = "archive.search"
    /// The storage writes: serialized, so they reach the database and come back
    /// to the state in the order they were dispatched.
    public static let storageEffectID: EffectID = "archive.storage"
    /// The stored-status refresh: a newer one replaces the one in flight.
    public static let refreshEffectID: EffectID = "archive.refresh"
    /// The most favorites shown when the catalog is unavailable (newest first).
    public static let offlineLimit = 1_000

    /// Every Archive middleware.
    public static func all(_ environment: ArchiveEnvironment) -> [Middleware<AppState, AppAction>] {
        [search(environment), storage(environment), refresh(environment)]
    }

    /// On a request: asks the API for the matching dishes with the state's
    /// conditions (the reducer has already merged the action's condition with
    /// the other one), then the favorites for which of *those* IDs are stored,
    /// and dispatches `success`. The stored IDs are read after the API answered,
    /// so a heart toggled meanwhile is not lost.
    ///
    /// When the API fails, it searches the stored favorites with the same
    /// conditions and dispatches both outcomes (`catalogFailed`); the reducer
    /// decides what is shown. Both reads are one effect, so a newer search
    /// cancels them together and a stale answer is never dispatched.
    public static func search(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let api = environment.requestArchiveRepository
        let favorites = environment.storedArchiveDataRepository
        return Middleware { state, action in
            switch action {
            case .archive(.requestWithInputText), .archive(.requestWithSelectedCategory),
                .archive(.requestWithNoConditions), .archive(.requestWithConditions), .archive(.retry):
                let keyword = state.archiveState.inputText
                let category = state.archiveState.selectedCategory
                return .run(.cancelInFlight(searchEffectID)) { send in
                    let entities: [ArchiveSceneEntity]
                    do {
                        entities = try await api.getArchiveResponse(keyword: keyword, category: category)
                        try Task.checkCancellation()
                    } catch {
                        if error is CancellationError || Task.isCancelled { return }
                        let answer = storedFavorites(matching: keyword, category: category, in: favorites)
                        await send(.archive(.catalogFailed(reason: "\(error)", favorites: answer)))
                        return
                    }
                    let result: ArchiveAction
                    do {
                        result = .success(entities: entities, storedIDs: try favorites.storedIDs(among: entities.map(\.id)))
                    } catch {
                        result = .failure(message: "search failed: cannot read which results are stored: \(error)")
                    }
                    await send(.archive(result))
                }
            default:
                return .none
            }
        }
    }

    /// On add / delete: writes through the favorites repository, then dispatches
    /// the outcome, so that `isStored` changes only through the state.
    public static func storage(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let api = environment.requestArchiveRepository
        let favorites = environment.storedArchiveDataRepository
        let now = environment.now
        return Middleware { _, action in
            switch action {
            case .archive(.addArchiveObject(let cell)):
                return .run(.serial(storageEffectID)) { send in
                    await send(.archive(store(cell.entity, at: now(), in: favorites)))
                }
            case .archive(.addArchiveObjectWithID(let id)):
                return .run(.serial(storageEffectID)) { send in
                    let outcome: ArchiveAction
                    do {
                        let entity = try await api.getArchiveEntity(id: id)
                        if entity.id == id {
                            outcome = store(entity, at: now(), in: favorites)
                        } else {
                            outcome = .addArchiveObjectFailed(
                                id: id,
                                message: "cannot store \(id): the catalog answered dish \(entity.id) when asked for dish \(id); nothing was stored (is the catalog URL right?)")
                        }
                    } catch {
                        outcome = .addArchiveObjectFailed(id: id, message: "cannot store \(id): \(error)")
                    }
                    await send(.archive(outcome))
                }
            case .archive(.deleteArchiveObject(let id)):
                return .run(.serial(storageEffectID)) { send in
                    let outcome: ArchiveAction
                    do {
                        outcome = .deleteArchiveObjectSucceeded(id: id, wasStored: try favorites.delete(id: id))
                    } catch {
                        outcome = .deleteArchiveObjectFailed(id: id, message: "cannot remove \(id): \(error)")
                    }
                    await send(.archive(outcome))
                }
            default:
                return .none
            }
        }
    }

    /// On refresh: re-reads which shown rows are stored.
    public static func refresh(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let favorites = environment.storedArchiveDataRepository
        return Middleware { state, action in
            guard case .archive(.refreshStoredStatus) = action else { return .none }
            let ids = state.archiveState.shownIDs
            return .run(.cancelInFlight(refreshEffectID)) { send in
                do {
                    let stored = try favorites.storedIDs(among: ids)
                    await send(.archive(.storedStatusRefreshed(storedIDs: stored, among: ids)))
                } catch {
                    // A failed refresh changes nothing: the rows keep their last known state.
                }
            }
        }
    }

    /// The stored favorites matching a search's conditions, as catalog entities, newest first.
    private static func storedFavorites(
        matching keyword: String, category: String, in favorites: any StoredArchiveDataRepository
    ) -> StoredFavoritesAnswer {
        do {
            let result = try favorites.search(FavoritesQuery(keyword: keyword, category: category), after: nil, limit: offlineLimit)
            let entities = result.page.map { ArchiveSceneEntity($0.object) }
            return .found(entities, total: result.matchCount)
        } catch {
            return .failed("\(error)")
        }
    }

    private static func store(
        _ entity: ArchiveSceneEntity, at date: Date, in favorites: any StoredArchiveDataRepository
    ) -> ArchiveAction {
        let object = entity.favorite(storedAtMilliseconds: date.millisecondsSince1970)
        do {
            let isNew = try favorites.create(object)
            return .addArchiveObjectSucceeded(id: entity.id, wasStored: !isNew)
        } catch {
            return .addArchiveObjectFailed(id: entity.id, message: "cannot store \(entity.id): \(error)")
        }
    }
}
