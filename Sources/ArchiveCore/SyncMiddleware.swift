public import Redux
import ArchiveStorage

/// Runs a sync off the main actor (``ArchiveEnvironment/sync``) and reports it; when it
/// received changes, what the screens show is read again (``AppAction/externalChangeDetected``),
/// so the TUI shows them at once.
public enum SyncMiddleware {
    /// One sync at a time.
    public static let effectID: EffectID = "sync"

    /// Status reads: the latest replaces one in flight.
    public static let statusEffectID: EffectID = "syncStatus"

    /// The middleware: a sync on ``SyncAction/start(_:)``; the status read on
    /// ``SyncAction/refreshStatus`` and, once a front has asked for it (the TUI shows it;
    /// `archive add` does not, and pays no read for it), again after a sync and after every
    /// change to the favorites (what waits for the next sync moved).
    public static func sync(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let sync = environment.sync, syncStatus = environment.syncStatus
        return Middleware { state, action in
            switch action {
            case .sync(.start(let peer)):
                return .run(.serial(effectID)) { send in
                    do {
                        let summary = try await sync(peer)
                        await send(.sync(.finished(peer, summary: summary)))
                        if summary.received.applied > 0 { await send(.externalChangeDetected) }
                    } catch {
                        await send(.sync(.failed(peer, message: "\(error)")))
                    }
                }
            case .sync(.finished), .sync(.failed), .archive(.addArchiveObjectSucceeded), .archive(.deleteArchiveObjectSucceeded), .externalChangeDetected:
                guard state.syncState.status != nil else { return .none }
                return readStatus(syncStatus)
            case .sync(.refreshStatus):
                return readStatus(syncStatus)
            default:
                return .none
            }
        }
    }

    private static func readStatus(_ syncStatus: @escaping @Sendable () async throws -> SyncStatus) -> Effect<AppAction> {
        .run(.cancelInFlight(statusEffectID)) { send in
            // A store without a database, or a status that cannot be read now: none shown.
            guard let status = try? await syncStatus() else { return }
            await send(.sync(.status(status)))
        }
    }
}
