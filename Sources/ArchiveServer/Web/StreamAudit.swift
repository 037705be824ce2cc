public import ArchiveServerStorage
public import Logging
public import ServiceLifecycle

/// Ends the open event streams whose identity no longer holds, for what other processes
/// do to the database: `archive-server devices revoke` ends a token, `users remove` a
/// user, `renew-feeds` (after a restore) every feed. Every ``interval`` while streams are
/// open, one query asks the backend which of their identities still hold
/// (``SyncBackend/stillValid(_:)``); the others are ended and their slots freed. A
/// database that cannot answer ends nothing (the next round asks again), and is logged.
/// What this process does itself (a sign-out) ends its streams at once, without waiting.
public struct StreamAudit: Service {
    /// How often the open streams' identities are checked.
    public static let interval: Duration = .milliseconds(400)

    let backend: any SyncBackend
    let events: FeedEvents
    let logger: Logger

    /// Checks `events`' streams against `backend`, logging to `logger`.
    public init(backend: any SyncBackend, events: FeedEvents, logger: Logger) {
        self.backend = backend
        self.events = events
        self.logger = logger
    }

    /// Checks until the server stops.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: Self.interval)
                } catch {
                    return
                }
                await audit()
            }
        }
    }

    /// One round: ends the streams whose identity no longer holds. Only those it asked
    /// about: a stream opened while the backend answered is checked next round.
    package func audit() async {
        let open = events.identities
        guard !open.isEmpty else { return }
        do {
            let valid = try await backend.stillValid(open)
            let ended = events.end { open.contains($0) && !valid.contains($0) }
            if ended > 0 { logger.notice("ended \(ended) event stream(s): their device was revoked, their session ended or their user removed") }
        } catch {
            logger.warning("cannot check the open event streams' devices now: \(error)")
        }
    }
}
