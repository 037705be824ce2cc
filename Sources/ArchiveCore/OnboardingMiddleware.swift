public import Redux
import ArchiveStorage

/// The onboarding overlay's side effects (the original `onboardingMiddleware`
/// and `onboardingCloseMiddleware`).
public enum OnboardingMiddleware {
    /// Every onboarding middleware.
    public static func all(_ environment: ArchiveEnvironment) -> [Middleware<AppState, AppAction>] {
        [request(environment), close(environment), reset(environment)]
    }

    /// On request: shows the overlay when the repository says it should be.
    public static func request(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let repository = environment.onboardingRepository
        return Middleware { _, action in
            guard case .onboarding(.request) = action else { return .none }
            return .run { send in
                do {
                    if try repository.shouldShowOnboarding() { await send(.onboarding(.show)) }
                } catch {
                    await send(.onboarding(.failure(message: "cannot read the onboarding flag: \(error)")))
                }
            }
        }
    }

    /// On close: records that the overlay was dismissed, so it is never shown again for this database.
    public static func close(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let repository = environment.onboardingRepository
        return Middleware { _, action in
            guard case .onboarding(.close) = action else { return .none }
            return .run(.serial(ArchiveMiddleware.storageEffectID)) { send in
                do {
                    try repository.changeOnboardingStatusFalse()
                } catch {
                    await send(.onboarding(.failure(message: "cannot save the onboarding flag: \(error)")))
                }
            }
        }
    }

    /// On reset: forgets the dismissal, then requests the overlay again.
    public static func reset(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let repository = environment.onboardingRepository
        return Middleware { _, action in
            guard case .onboarding(.reset) = action else { return .none }
            return .run(.serial(ArchiveMiddleware.storageEffectID)) { send in
                do {
                    try repository.reset()
                    await send(.onboarding(.request))
                } catch {
                    await send(.onboarding(.failure(message: "cannot reset the onboarding flag: \(error)")))
                }
            }
        }
    }
}
