/// Whether the first-launch onboarding is to be shown (the original app's UserDefaults flag).
public protocol OnboardingRepository: Sendable {
    /// `true` until the onboarding was dismissed; `true` on a new database.
    func shouldShowOnboarding() throws -> Bool
    /// Records that the onboarding was dismissed, so it is not shown again.
    func changeOnboardingStatusFalse() throws
    /// Forgets the dismissal, so the onboarding shows again.
    func reset() throws
}
