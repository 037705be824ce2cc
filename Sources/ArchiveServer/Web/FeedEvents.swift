public import ArchiveServerStorage
import Synchronization

/// Tells a user's open event streams (the web page's, `archive-tui`'s) that the user's feed
/// moved: a push landed some change, from any device, on this server or, through the
/// backend's ``FeedBroadcast`` (PostgreSQL's `LISTEN`/`NOTIFY`), on another server of the
/// same storage (``FeedRelay`` delivers what the others announce).
///
/// Each stream is held with its ``StreamIdentity``, and is ended (its sequence finishes)
/// when that identity stops holding: at once for what this process does (a sign-out),
/// within ``StreamAudit/interval`` for what another does (`devices revoke`, `users
/// remove`). Bounded: at most ``maximumStreamsPerUser`` streams a user, and each stream
/// holds at most one pending event (events carry no data a stream could miss: "read again").
public final class FeedEvents: Sendable {
    /// The most streams one user may hold open at once.
    public let maximumStreamsPerUser: Int

    private struct Listener {
        let id: UInt64
        let identity: StreamIdentity
        let continuation: AsyncStream<Void>.Continuation
    }

    private struct State {
        var nextID: UInt64 = 0
        var listeners: [Int64: [Listener]] = [:]
    }

    private let state = Mutex(State())
    private let broadcast: (any FeedBroadcast)?

    /// A hub with at most `maximumStreamsPerUser` streams a user, telling the other servers
    /// of `broadcast` (if any) of each move published here.
    public init(maximumStreamsPerUser: Int = 8, broadcast: (any FeedBroadcast)? = nil) {
        self.maximumStreamsPerUser = maximumStreamsPerUser
        self.broadcast = broadcast
    }

    /// A stream of the feed moves of `identity`'s user, or `nil` when the user holds the
    /// most streams already. The stream ends when its consumer stops iterating (or is
    /// cancelled), or when the identity is ended (``end(where:)``).
    public func subscribe(_ identity: StreamIdentity) -> AsyncStream<Void>? {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id: UInt64? = state.withLock { state in
            guard state.listeners[identity.user, default: []].count < maximumStreamsPerUser else { return nil }
            state.nextID += 1
            state.listeners[identity.user, default: []].append(Listener(id: state.nextID, identity: identity, continuation: continuation))
            return state.nextID
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in self?.remove(id, of: identity.user) }
        return stream
    }

    /// Tells `user`'s streams that the feed moved, here and on the other servers.
    public func publish(user: Int64) {
        deliver(.user(user))
        broadcast?.announce(user: user)
    }

    /// Tells this server's streams of `move` (what another server announced): those of its
    /// user, or every stream.
    public func deliver(_ move: FeedMove) {
        let listeners = state.withLock { state in
            switch move {
            case .user(let user): state.listeners[user] ?? []
            case .everyone: Array(state.listeners.values.joined())
            }
        }
        for listener in listeners { listener.continuation.yield() }
    }

    /// The identities of the open streams.
    public var identities: Set<StreamIdentity> {
        state.withLock { Set($0.listeners.values.joined().map(\.identity)) }
    }

    /// Ends every open stream whose identity `ends` says, and frees its slot at once.
    /// Returns how many were ended.
    @discardableResult
    public func end(where ends: (StreamIdentity) -> Bool) -> Int {
        let ended: [Listener] = state.withLock { state in
            var ended: [Listener] = []
            for (user, listeners) in state.listeners {
                let (gone, kept) = (listeners.filter { ends($0.identity) }, listeners.filter { !ends($0.identity) })
                guard !gone.isEmpty else { continue }
                ended += gone
                state.listeners[user] = kept.isEmpty ? nil : kept
            }
            return ended
        }
        for listener in ended { listener.continuation.finish() }
        return ended.count
    }

    private func remove(_ id: UInt64, of user: Int64) {
        state.withLock { state in
            state.listeners[user]?.removeAll { $0.id == id }
            if state.listeners[user]?.isEmpty == true { state.listeners[user] = nil }
        }
    }
}
