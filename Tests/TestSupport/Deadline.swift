import Synchronization
public import Testing
#if canImport(Glibc)
import Glibc
#endif

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
                // The deadline itself, not a wait for a state: the first of this timer and
                // the operation resumes the test.
                try? await Task.sleep(for: limit)
                if once.resume(returning: nil) { work.cancel() }
            }
        }
        if outcome == nil {
            Issue.record("\(what) did not happen within \(limit)", sourceLocation: sourceLocation)
        }
        return outcome
    }

    /// Checks `condition` every `interval` until it holds or `limit` has passed; whether it
    /// held. Only for states that no event announces (a peer's socket having read what was
    /// sent, a process that is not this one's child having gone): every other wait blocks
    /// on its event (a pipe, `waitpid`, a FIFO, the store). The one sleeping loop of the tests.
    public static func poll(
        every interval: Duration = .milliseconds(1), within limit: Duration = standard, until condition: () throws -> Bool
    ) rethrows -> Bool {
        let deadline = ContinuousClock.now + limit
        while true {
            if try condition() { return true }
            guard ContinuousClock.now < deadline else { return false }
            let (seconds, attoseconds) = interval.components
            usleep(useconds_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
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
