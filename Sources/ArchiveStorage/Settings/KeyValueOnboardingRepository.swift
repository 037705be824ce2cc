/// ``OnboardingRepository`` on the ``KeyValueStore``: the `onboardingStatus` key.
public struct KeyValueOnboardingRepository: OnboardingRepository {
    /// The original app's key: `true` while the onboarding is still to be shown.
    public static let onboardingStatus = KeyValueStore.Key<Bool>("onboardingStatus", default: true)

    /// The store holding the flag.
    public let store: KeyValueStore

    /// A repository over `store`.
    public init(store: KeyValueStore) {
        self.store = store
    }

    public func shouldShowOnboarding() throws -> Bool {
        try store.value(for: Self.onboardingStatus)
    }

    public func changeOnboardingStatusFalse() throws {
        try store.set(false, for: Self.onboardingStatus)
    }

    public func reset() throws {
        try store.remove(Self.onboardingStatus)
    }
}
