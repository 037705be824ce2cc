import Synchronization

/// Tells a user's open event streams (the web page's, `archive-tui`'s) that the user's feed
/// moved: a push landed some change, from any device. In this process only: several
/// servers in front of one PostgreSQL do not hear each other's pushes (docs/WEB.md).
///
/// Bounded: at most ``maximumStreamsPerUser`` streams a user, and each stream holds at most
/// one pending event (events carry no data a stream could miss: "read again").
public final class FeedEvents: Sendable {
    /// The most streams one user may hold open at once.
    public let maximumStreamsPerUser: Int

    private struct Listener {
        let id: UInt64
        let continuation: AsyncStream<Void>.Continuation
    }

    private struct State {
        var nextID: UInt64 = 0
        var listeners: [Int64: [Listener]] = [:]
    }

    private let state = Mutex(State())

    /// A hub with at most `maximumStreamsPerUser` streams a user.
    public init(maximumStreamsPerUser: Int = 8) {
        self.maximumStreamsPerUser = maximumStreamsPerUser
    }

    /// A stream of `user`'s feed moves, or `nil` when the user holds the most streams
    /// already. The stream ends when its consumer stops iterating (or is cancelled).
    public func subscribe(user: Int64) -> AsyncStream<Void>? {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id: UInt64? = state.withLock { state in
            guard state.listeners[user, default: []].count < maximumStreamsPerUser else { return nil }
            state.nextID += 1
            state.listeners[user, default: []].append(Listener(id: state.nextID, continuation: continuation))
            return state.nextID
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in self?.remove(id, of: user) }
        return stream
    }

    /// Tells `user`'s streams that the feed moved.
    public func publish(user: Int64) {
        let listeners = state.withLock { $0.listeners[user] ?? [] }
        for listener in listeners { listener.continuation.yield() }
    }

    private func remove(_ id: UInt64, of user: Int64) {
        state.withLock { state in
            state.listeners[user]?.removeAll { $0.id == id }
            if state.listeners[user]?.isEmpty == true { state.listeners[user] = nil }
        }
    }
}
