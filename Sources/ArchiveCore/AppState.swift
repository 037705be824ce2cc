/// The whole app's state: one slice per screen, as in the original app.
public struct AppState: Sendable, Equatable {
    /// The onboarding overlay.
    public var onboardingState = OnboardingState()
    /// The Archive screen.
    public var archiveState = ArchiveState()
    /// The Favorites view.
    public var favoritesState = FavoritesState()
    /// The settings.
    public var settingsState = SettingsState()
    /// The last sync.
    public var syncState = SyncState()

    /// The state at launch.
    public init() {}
}
