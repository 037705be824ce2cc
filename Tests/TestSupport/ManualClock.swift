import Synchronization

/// A wall clock a test sets: a device whose clock is ahead, behind, or stopped.
public final class ManualClock: Sendable {
    private let milliseconds: Mutex<Int64>

    /// A clock showing `milliseconds` since 1970.
    public init(_ milliseconds: Int64) {
        self.milliseconds = Mutex(milliseconds)
    }

    /// Now.
    public func now() -> Int64 { milliseconds.withLock { $0 } }

    /// Moves the clock by `delta` milliseconds.
    public func advance(by delta: Int64) { milliseconds.withLock { $0 += delta } }
}
