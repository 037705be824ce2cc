import ArchiveStorage

/// The settings' pure reducer.
public enum SettingsReducer {
    /// Applies `action` to `state`.
    public static func reduce(_ state: inout SettingsState, _ action: SettingsAction) {
        switch action {
        case .load, .set, .reset:
            state.isLoading = true
            state.errorMessage = nil
        case .loaded(let entries, let lastSearch):
            state.entries = entries
            state.lastSearch = lastSearch
            state.isLoading = false
            state.hasLoaded = true
        case .rememberView(let view):
            state.lastSearch?.view = view
        case .rememberSearch:
            break  // the conditions are the Archive screen's; the middleware stores them
        case .failure(let message):
            state.isLoading = false
            state.errorMessage = message
        }
    }
}
