public import Redux

/// The app's store: ``AppState``, ``AppAction``, the app reducer and every middleware.
public typealias AppStore = Store<AppState, AppAction>

extension Store where State == AppState, Action == AppAction {
    /// A store wired to `environment`'s repositories.
    ///
    /// ```swift
    /// let database = try ArchiveDatabase(path: "favorites.sqlite3")
    /// let store = AppStore(environment: ArchiveEnvironment(database: database))
    /// store.dispatch(.archive(.requestWithInputText("チーズ")))
    /// await store.finishEffects()
    /// print(store.state.archiveState.archiveCellViewObjects)
    /// ```
    ///
    /// With an `actionLog`, every action and effect is logged there (``ActionLogMiddleware``).
    /// Effects prefer `effectExecutor` when one is given (``Store/init(initialState:reducer:middlewares:effectExecutor:)``).
    public convenience init(
        environment: ArchiveEnvironment, initialState: AppState = AppState(), actionLog: (any ActionLogSink)? = nil,
        effectExecutor: (any TaskExecutor)? = nil
    ) {
        var middlewares = ArchiveMiddleware.all(environment) + OnboardingMiddleware.all(environment)
            + SettingsMiddleware.all(environment)
            + [FavoritesMiddleware.page(environment), ExternalChangesMiddleware.watch(environment), SyncMiddleware.sync(environment)]
        if let actionLog {
            middlewares = [ActionLogMiddleware.wrapping(middlewares, initialState: initialState, into: actionLog)]
        }
        self.init(initialState: initialState, reducer: AppReducer.reducer, middlewares: middlewares, effectExecutor: effectExecutor)
    }
}
