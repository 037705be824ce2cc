/// The state of the first-launch onboarding overlay.
public struct OnboardingState: Sendable, Equatable {
    /// Whether the overlay is shown.
    public var showOnboarding = false
    /// Why reading or saving the onboarding flag failed, if it did.
    public var errorMessage: String?

    /// Hidden, no error.
    public init() {}
}
