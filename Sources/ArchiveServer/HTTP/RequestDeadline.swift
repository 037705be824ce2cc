import NIOCore
import Synchronization

/// The bound on one request's work with the database (`archive-server --request-timeout`):
/// past it, the request is answered `503` (``ServerStorageError/unavailable(_:)``: ``StorageDeadline``) instead of
/// waiting for a database that does not answer: PostgreSQL restarting (the pool's wait for a
/// connection would otherwise last its whole connection-retry budget, about a minute), or a
/// statement written to a connection that closed under it, whose answer never comes (seen
/// with PostgreSQL stopped under load).
///
/// The answer does not wait for the work to end: at the deadline the work is cancelled and
/// left to end on its own. What honours cancellation stops there (the pool's wait for a
/// connection does); a statement already sent runs to its end or its connection's, and its
/// transaction commits or not on its own. The `503` says that nothing was acknowledged, so
/// the client sends the same push again, which the merge rule makes harmless.
enum RequestDeadline {
    /// `work`'s result, or `timedOut` once `limit` has passed (a request body's deadline).
    static func run<Value: Sendable>(
        _ limit: Duration, timedOut: @escaping @Sendable @autoclosure () -> any Error, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await run(until: .now() + TimeAmount(limit), timedOut: timedOut(), work)
    }

    /// `work`'s result, or `timedOut` once `due` has passed (a request's
    /// ``StorageDeadline``). The work runs in a task of its own, so that the answer need not
    /// wait for it; the deadline is an entry of ``DeadlineTimer/shared``, not a task.
    /// `timedOut` is made only when the deadline passes: nearly every request ends before.
    static func run<Value: Sendable>(
        until due: NIODeadline, timedOut: @escaping @Sendable @autoclosure () -> any Error, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let race = Race<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(
                    continuation,
                    worker: Task {
                        let outcome: Result<Value, any Error>
                        do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
                        race.finish(outcome)
                    },
                    timer: DeadlineTimer.shared.schedule(at: due) { race.finish(.failure(timedOut())) })
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// The work and the deadline: the first to finish resumes the request, cancels the work
    /// and removes the deadline.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var worker: Task<Void, Never>?
            var timer: UInt64?
            /// An outcome that came before ``start(_:worker:timer:)`` had stored the continuation.
            var early: Result<Value, any Error>?
        }
        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<Value, any Error>, worker: Task<Void, Never>, timer: UInt64) {
            let early = state.withLock { state -> Result<Value, any Error>? in
                state.worker = worker
                state.timer = timer
                if let early = state.early { return early }
                state.continuation = continuation
                return nil
            }
            if let early {
                worker.cancel()
                DeadlineTimer.shared.cancel(timer)
                continuation.resume(with: early)
            }
        }

        func finish(_ outcome: Result<Value, any Error>) {
            let (continuation, worker, timer) = state.withLock { state in
                guard let continuation = state.continuation else {
                    if state.worker == nil, state.early == nil { state.early = outcome }
                    return (CheckedContinuation<Value, any Error>?.none, Task<Void, Never>?.none, UInt64?.none)
                }
                state.continuation = nil
                return (continuation, state.worker, state.timer)
            }
            guard let continuation else { return }
            worker?.cancel()
            if let timer { DeadlineTimer.shared.cancel(timer) }
            continuation.resume(with: outcome)
        }
    }
}
