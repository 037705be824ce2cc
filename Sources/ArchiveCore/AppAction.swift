/// Every action of the app, by screen.
public enum AppAction: Sendable, Equatable {
    /// An action of the Archive screen.
    case archive(ArchiveAction)
    /// An action of the onboarding overlay.
    case onboarding(OnboardingAction)
    /// An action of the Favorites view.
    case favorites(FavoritesAction)
}
