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
    /// Syncs this database with a peer, both ways: another database file (``SyncSession``),
    /// or a sync service, which the front reaches with its token (`ServerSyncSession`).
    public var sync: @Sendable (SyncPeer) async throws -> SyncSession.Summary
    /// When this database last finished a sync, and the changes it made since.
    public var syncStatus: @Sendable () async throws -> SyncStatus

    /// Creates an environment from its parts.
    public init(
        requestArchiveRepository: any RequestArchiveRepository,
        storedArchiveDataRepository: any StoredArchiveDataRepository,
        onboardingRepository: any OnboardingRepository,
        settingsRepository: any SettingsRepository = UnavailableSettingsRepository(),
        now: @escaping @Sendable () -> Date = { Date() },
        dataVersion: @escaping @Sendable () throws -> Int = { 0 },
        sync: @escaping @Sendable (SyncPeer) async throws -> SyncSession.Summary = { _ in throw SyncUnavailable() },
        syncStatus: @escaping @Sendable () async throws -> SyncStatus = { throw SyncUnavailable() }
    ) {
        self.requestArchiveRepository = requestArchiveRepository
        self.storedArchiveDataRepository = storedArchiveDataRepository
        self.onboardingRepository = onboardingRepository
        self.settingsRepository = settingsRepository
        self.now = now
        self.dataVersion = dataVersion
        self.sync = sync
        self.syncStatus = syncStatus
    }

    /// The repositories of `database` and the catalog `api` (the bundled one by default);
    /// a sync with a service goes through `syncServer` (none: such a sync fails, saying so).
    public init(
        database: ArchiveDatabase, api: any RequestArchiveRepository = BundledArchiveRepository(),
        syncServer: (@Sendable (String) async throws -> SyncSession.Summary)? = nil
    ) {
        self.init(
            requestArchiveRepository: api, storedArchiveDataRepository: database.favorites,
            onboardingRepository: database.onboarding, settingsRepository: database.settings, dataVersion: { try database.dataVersion() },
            sync: { peer in
                let summary: SyncSession.Summary
                switch peer {
                case .file(let path):
                    summary = try SyncSession.run(database, with: SyncSession.openOther(path, besides: database))
                case .server(let url):
                    guard let syncServer else { throw SyncUnavailable() }
                    summary = try await syncServer(url)
                }
                try database.recordSync(at: Date())
                return summary
            },
            syncStatus: { try database.syncStatus() })
    }
}

/// An environment made without a database cannot sync.
public struct SyncUnavailable: Error, CustomStringConvertible {
    /// The error.
    public init() {}

    /// The reason.
    public var description: String { "this store has no database to sync" }
}
