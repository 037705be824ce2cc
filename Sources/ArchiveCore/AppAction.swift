/// Every action of the app, by screen.
public enum AppAction: Sendable, Equatable {
    /// An action of the Archive screen.
    case archive(ArchiveAction)
    /// An action of the onboarding overlay.
    case onboarding(OnboardingAction)
    /// An action of the Favorites view.
    case favorites(FavoritesAction)
    /// An action on the settings.
    case settings(SettingsAction)
    /// Sync with another database.
    case sync(SyncAction)
    /// Start noticing commits of other processes, checking every `interval`.
    case watchExternalChanges(interval: Duration)
    /// Stop noticing them.
    case stopWatchingExternalChanges
    /// Another process changed the database: re-read what is shown.
    case externalChangeDetected
}
