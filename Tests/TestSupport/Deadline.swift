import Synchronization
public import Testing

/// A bound on a wait that should end by itself: a test that waits for something
/// that never happens fails after `limit`, naming what it waited for, instead of
/// hanging until the suite's time limit (or CI's).
///
/// The limit only turns a hang into a failure: it is far above what the awaited
/// work takes on a loaded machine, and nothing asserts how long the wait took.
public enum Deadline {
    /// What every wait in the tests allows unless it says otherwise.
    public static let standard: Duration = .seconds(60)

    /// Runs `operation` and returns its value, or records an issue naming `what`
    /// and returns `nil` if it has not returned within `limit` (the operation is
    /// left to finish, or not, on its own: it cannot be interrupted from here).
    @discardableResult
    public static func wait<Value: Sendable>(
        for what: String, within limit: Duration = standard,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ operation: @escaping @Sendable () async -> Value
    ) async -> Value? {
        let outcome: Value? = await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let work = Task { once.resume(returning: await operation()) }
            Task {
                try? await Task.sleep(for: limit)
                if once.resume(returning: nil) { work.cancel() }
            }
        }
        if outcome == nil {
            Issue.record("\(what) did not happen within \(limit)", sourceLocation: sourceLocation)
        }
        return outcome
    }

    /// Resumes a continuation once: the first of the operation and the timer wins.
    private final class ResumeOnce<Value: Sendable>: Sendable {
        private let continuation: Mutex<CheckedContinuation<Value?, Never>?>

        init(_ continuation: CheckedContinuation<Value?, Never>) {
            self.continuation = Mutex(continuation)
        }

        /// Resumes with `value` if nobody has yet; whether this call did.
        @discardableResult
        func resume(returning value: Value?) -> Bool {
            guard let continuation = self.continuation.withLock({ stored in
                defer { stored = nil }
                return stored
            }) else { return false }
            continuation.resume(returning: value)
            return true
        }
    }
}
