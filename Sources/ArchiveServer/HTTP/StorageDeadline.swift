import ArchiveServerStorage
import NIOCore

/// When one request's work with the database must end (``StorageDeadlineMiddleware`` sets
/// it in the request context), and the limit it came from, for the `503` that says so.
public struct StorageDeadline: Sendable {
    /// The instant past which the request is answered `503`.
    let due: NIODeadline
    /// The time it was given.
    let limit: Duration

    /// `limit` from now.
    init(limit: Duration) {
        self.due = .now() + TimeAmount(limit)
        self.limit = limit
    }

    /// `work`'s result, or ``ServerStorageError/unavailable(_:)`` naming `what` once the
    /// deadline has passed (``RequestDeadline``).
    func run<Value: Sendable>(
        _ what: @escaping @Sendable @autoclosure () -> String, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let limit = self.limit
        return try await RequestDeadline.run(until: due, timedOut: ServerStorageError.unavailable("\(what()) took longer than the request timeout (\(limit))"), work)
    }
}
