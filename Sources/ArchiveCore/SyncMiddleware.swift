public import Redux
import ArchiveStorage

/// Runs a sync off the main actor (``ArchiveEnvironment/sync``) and reports it; when it
/// received changes, what the screens show is read again (``AppAction/externalChangeDetected``),
/// so the TUI shows them at once.
public enum SyncMiddleware {
    /// One sync at a time.
    public static let effectID: EffectID = "sync"

    /// The middleware.
    public static func sync(_ environment: ArchiveEnvironment) -> Middleware<AppState, AppAction> {
        let sync = environment.sync
        return Middleware { _, action in
            guard case .sync(.start(let peer)) = action else { return .none }
            return .run(.serial(effectID)) { send in
                do {
                    let summary = try await sync(peer)
                    await send(.sync(.finished(peer, summary: summary)))
                    if summary.received.applied > 0 { await send(.externalChangeDetected) }
                } catch {
                    await send(.sync(.failed(peer, message: "\(error)")))
                }
            }
        }
    }
}
