import Synchronization

/// Collects values from any thread or task, for tests to read back.
public final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    /// An empty recorder.
    public init() {}

    /// Appends `value`.
    public func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    /// Everything appended so far, in order.
    public var values: [Value] {
        storage.withLock { $0 }
    }
}
