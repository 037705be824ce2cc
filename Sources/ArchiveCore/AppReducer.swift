public import Redux

/// The app's reducer: each screen's reducer on its slice (the original `appReducer`).
public enum AppReducer {
    /// The reducer as a value for the store.
    public static let reducer = Reducer<AppState, AppAction>(reduce)

    /// Applies `action` to the slice it belongs to.
    public static func reduce(_ state: inout AppState, _ action: AppAction) {
        switch action {
        case .archive(let action):
            ArchiveReducer.reduce(&state.archiveState, action)
            // The one Archive action the Favorites view depends on: an unstore from
            // the Archive screen (or the CLI) removes the favorite's row there too.
            if case .deleteArchiveObjectSucceeded(let id, wasStored: true) = action {
                FavoritesReducer.favoriteUnstored(id: id, in: &state.favoritesState)
            }
        case .onboarding(let action):
            OnboardingReducer.reduce(&state.onboardingState, action)
        case .favorites(let action):
            FavoritesReducer.reduce(&state.favoritesState, action)
        case .settings(let action):
            SettingsReducer.reduce(&state.settingsState, action)
        case .sync(let action):
            SyncReducer.reduce(&state.syncState, action)
        case .watchExternalChanges, .stopWatchingExternalChanges, .externalChangeDetected:
            break
        }
    }
}
