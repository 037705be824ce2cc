
/// The onboarding overlay's pure reducer.
public enum OnboardingReducer {
    /// Applies `action` to `state`.
    public static func reduce(_ state: inout OnboardingState, _ action: OnboardingAction) {
        switch action {
        case .request, .reset:
            state.errorMessage = nil
        case .show:
            state.showOnboarding = true
        case .close:
            state.showOnboarding = false
        case .failure(let message):
            state.errorMessage = message
        }
    }
}
