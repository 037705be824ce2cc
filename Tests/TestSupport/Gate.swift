public import Testing

/// A one-shot gate a test opens to let waiting work proceed: orders concurrent
/// work deterministically without sleeping.
public actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var arrivals = 0
    private var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// A gate, closed unless `open` (an open gate only counts arrivals).
    public init(open: Bool = false) {
        isOpen = open
    }

    /// Waits until the gate is opened (returns at once if it already is).
    public func wait() async {
        arrivals += 1
        let ready = arrivalWaiters.filter { $0.count <= arrivals }
        arrivalWaiters.removeAll { $0.count <= arrivals }
        for waiter in ready { waiter.continuation.resume() }
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Waits until `count` callers in all have reached ``wait()``; a test whose
    /// callers never arrive fails after ``Deadline/standard``, saying so.
    public nonisolated func waitForArrivals(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await Deadline.wait(for: "\(count) arrival(s) at the gate", sourceLocation: sourceLocation) {
            await self.arrivalsReach(count)
        }
    }

    private func arrivalsReach(_ count: Int) async {
        if arrivals >= count { return }
        await withCheckedContinuation { arrivalWaiters.append((count, $0)) }
    }

    /// Opens the gate for every present and future waiter.
    public func open() {
        isOpen = true
        let current = waiters
        waiters.removeAll()
        for waiter in current { waiter.resume() }
    }
}
