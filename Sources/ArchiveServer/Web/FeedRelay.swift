public import ArchiveServerStorage
public import ServiceLifecycle

/// Delivers to this server's open event streams what the other servers of the same
/// storage announce (``FeedBroadcast/listen(_:)``), for as long as the server runs.
public struct FeedRelay: Service {
    let broadcast: any FeedBroadcast
    let events: FeedEvents

    /// Relays `broadcast`'s announcements to `events`' streams.
    public init(broadcast: any FeedBroadcast, events: FeedEvents) {
        self.broadcast = broadcast
        self.events = events
    }

    /// Listens until the server stops.
    public func run() async throws {
        let events = self.events
        await cancelWhenGracefulShutdown {
            await broadcast.listen { events.deliver($0) }
        }
    }
}
