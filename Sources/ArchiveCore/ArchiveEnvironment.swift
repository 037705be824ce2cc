public import ArchiveAPI
public import ArchiveStorage
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The repositories and clock the middlewares use, injected by the front or the test.
public struct ArchiveEnvironment: Sendable {
    /// The catalog API (bundled or HTTP).
    public var requestArchiveRepository: any RequestArchiveRepository
    /// The favorites.
    public var storedArchiveDataRepository: any StoredArchiveDataRepository
    /// The onboarding flag.
    public var onboardingRepository: any OnboardingRepository
    /// The settings (install date, last search and view).
    public var settingsRepository: any SettingsRepository
    /// The clock that stamps `storedAt`.
    public var now: @Sendable () -> Date
    /// A number that changes when another process commits to the database
    /// (`PRAGMA data_version`); constant when nothing else can write.
    public var dataVersion: @Sendable () throws -> Int

    /// Creates an environment from its parts.
    public init(
        requestArchiveRepository: any RequestArchiveRepository,
        storedArchiveDataRepository: any StoredArchiveDataRepository,
        onboardingRepository: any OnboardingRepository,
        settingsRepository: any SettingsRepository = UnavailableSettingsRepository(),
        now: @escaping @Sendable () -> Date = { Date() },
        dataVersion: @escaping @Sendable () throws -> Int = { 0 }
    ) {
        self.requestArchiveRepository = requestArchiveRepository
        self.storedArchiveDataRepository = storedArchiveDataRepository
        self.onboardingRepository = onboardingRepository
        self.settingsRepository = settingsRepository
        self.now = now
        self.dataVersion = dataVersion
    }

    /// The repositories of `database` and the catalog `api` (the bundled one by default).
    public init(database: ArchiveDatabase, api: any RequestArchiveRepository = BundledArchiveRepository()) {
        self.init(
            requestArchiveRepository: api, storedArchiveDataRepository: database.favorites,
            onboardingRepository: database.onboarding, settingsRepository: database.settings, dataVersion: { try database.dataVersion() })
    }
}
