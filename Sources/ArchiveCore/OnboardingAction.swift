/// What can happen to the onboarding overlay. Names follow the original app's actions.
public enum OnboardingAction: Sendable, Equatable {
    /// Ask whether the overlay should be shown (`RequestOnboardingAction`).
    case request
    /// Show the overlay (`ShowOnboardingAction`).
    case show
    /// Close the overlay and never show it again for this database (`CloseOnboardingAction`).
    case close
    /// Forget the dismissal, so the overlay shows again (then asks again, as on launch).
    case reset
    /// Reading or saving the flag failed.
    case failure(message: String)
}
