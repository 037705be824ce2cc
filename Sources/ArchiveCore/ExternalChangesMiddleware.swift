public import Redux

/// Notices commits made to the database by other processes (another `archive`
/// in another terminal) and re-reads what the state shows.
public enum ExternalChangesMiddleware {
    /// The watching loop: one at a time.
    public static let watchEffectID: EffectID = "external.watch"

    /// How many favorites a refresh reloads at least.
    static let refreshPageSize = 200

    /// On `watchExternalChanges`: an effect that reads the data version, reconciles
    /// the state once (a commit made between the dispatch and the effect's first
    /// turn would otherwise be taken for the baseline and missed), then polls every
    /// interval and dispatches `externalChangeDetected` when the version moved.
    /// On that action: refreshes the shown rows' hearts and, if loaded, the favorites.
    public static func watch(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let dataVersion = environment.dataVersion
        return Middleware { state, action in
            switch action {
            case .watchExternalChanges(let interval):
                return .run(.cancelInFlight(watchEffectID)) { send in
                    var last = try? dataVersion()
                    await send(.externalChangeDetected)
                    while !Task.isCancelled {
                        do {
                            try await Task.sleep(for: interval)
                        } catch {
                            return
                        }
                        guard let version = try? dataVersion(), version != last else { continue }
                        last = version
                        await send(.externalChangeDetected)
                    }
                }
            case .stopWatchingExternalChanges:
                return .cancel(id: watchEffectID)
            case .externalChangeDetected:
                let reloadFavorites = state.favoritesState.hasLoaded
                return .run { send in
                    await send(.archive(.refreshStoredStatus))
                    if reloadFavorites {
                        await send(.favorites(.refresh(minimumLimit: refreshPageSize)))
                    }
                }
            default:
                return .none
            }
        }
    }
}
