public import Redux
import ArchiveStorage

/// The settings' side effects: reading and writing them, and remembering the
/// last search and view as the user works (the jobs UserDefaults had).
public enum SettingsMiddleware {
    /// Every settings middleware.
    public static func all(_ environment: ArchiveEnvironment) -> [Middleware<AppState, AppAction>] {
        [edit(environment), remember(environment)]
    }

    /// On load, set and reset: writes (serialized with the other storage writes),
    /// then reads every setting back and dispatches them.
    public static func edit(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let settings = environment.settingsRepository
        return Middleware { _, action in
            guard case .settings(let action) = action else { return .none }
            let change: (@Sendable () throws -> Void)?
            switch action {
            case .load:
                change = nil
            case .set(let key, let text):
                change = {
                    let setting = try ArchiveSetting.named(key)
                    try settings.set(setting, to: try setting.parse(text))
                }
            case .reset(let key):
                change = { try settings.reset(try ArchiveSetting.named(key)) }
            case .loaded, .rememberView, .rememberSearch, .failure:
                return .none
            }
            return .run(.serial(ArchiveMiddleware.storageEffectID)) { send in
                do {
                    try change?()
                    let entries = try settings.entries()
                    await send(.settings(.loaded(entries, lastSearch: LastSearch(entries: entries))))
                } catch {
                    await send(.settings(.failure(message: "\(error)")))
                }
            }
        }
    }

    /// Remembers the search conditions (read from the state, where the reducer
    /// has merged them) and the view, when the front says so. A failure to
    /// remember is not the user's problem: the front goes on regardless.
    public static func remember(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let settings = environment.settingsRepository
        return Middleware { state, action in
            switch action {
            case .settings(.rememberSearch):
                let keyword = state.archiveState.inputText
                let category = state.archiveState.selectedCategory
                return .run(.serial(ArchiveMiddleware.storageEffectID)) { _ in
                    try? settings.rememberSearch(keyword: keyword, category: category)
                }
            case .settings(.rememberView(let view)):
                return .run(.serial(ArchiveMiddleware.storageEffectID)) { _ in
                    try? settings.rememberView(view)
                }
            default:
                return .none
            }
        }
    }
}
