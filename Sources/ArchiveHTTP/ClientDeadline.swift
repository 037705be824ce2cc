/// One total deadline for a client request, connecting, sending and the whole answer: an
/// answer dripped a byte at a time ends when the deadline does, not when the bytes stop
/// (AsyncHTTPClient's own deadline covers the head only). On timeout the operation is
/// cancelled, and with it its connection work. The catalog client and the sync transport
/// both use it.
package enum ClientDeadline {
    /// Runs `operation`; throws `timeoutError()` if it is not done within `timeout`.
    package static func run<Result: Sendable>(
        _ timeout: Duration, timeoutError: @escaping @Sendable () -> any Error,
        _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw timeoutError()
            }
            defer { group.cancelAll() }
            guard let result = try await group.next() else { throw CancellationError() }
            return result
        }
    }
}
