import ArchiveServer
import NIOCore
import Synchronization
import TestSupport
import Testing

/// `DeadlineTimer`, the one timer every request's deadlines share: a deadline fires once, in
/// order of due time, unless removed first; an earlier deadline than the one its wake is
/// planned for is not kept waiting for it. Order only, never a measured time: a deadline an hour off
/// that fired, or a near one left waiting for it, shows as the wrong order or the time limit.
/// The tests run on threads of their own (`.blockingWork`) and the timer wakes on an event
/// loop, not on the cooperative pool. Their time limit is the other suites' five minutes: in
/// `swift test` on 2 cores both once ended only after 83 s, with another suite's long
/// synchronous test (they take 0.1 s alone); a deadline left an hour behind still fails.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct DeadlineTimerTests {
    /// What fired, in order.
    final class Fired: Sendable {
        private let names = Mutex<[String]>([])
        private let waiters = Mutex<[(String, CheckedContinuation<Void, Never>)]>([])

        func record(_ name: String) {
            names.withLock { $0.append(name) }
            let ready = waiters.withLock { waiters in
                let ready = waiters.filter { $0.0 == name }.map(\.1)
                waiters.removeAll { $0.0 == name }
                return ready
            }
            for waiter in ready { waiter.resume() }
        }

        var all: [String] { names.withLock { $0 } }

        /// Returns once `name` has fired, or the test is cancelled (its time limit).
        func wait(for name: String) async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let fired = names.withLock { names in
                        if names.contains(name) || Task.isCancelled { return true }
                        waiters.withLock { $0.append((name, continuation)) }
                        return false
                    }
                    if fired { continuation.resume() }
                }
            } onCancel: {
                let waiting = waiters.withLock { waiters in
                    defer { waiters.removeAll { $0.0 == name } }
                    return waiters.filter { $0.0 == name }.map(\.1)
                }
                for waiter in waiting { waiter.resume() }
            }
        }
    }

    @Test func aNearDeadlineFiresWhileAFarOneWaitsAndARemovedOneNever() async {
        let timer = DeadlineTimer(), fired = Fired(), now = NIODeadline.now()
        // The task sleeps for an hour; the near one must replace it, not wait behind it.
        let far = timer.schedule(at: now + .seconds(3600)) { fired.record("far") }
        let removed = timer.schedule(at: now + .milliseconds(20)) { fired.record("removed") }
        _ = timer.schedule(at: now + .milliseconds(60)) { fired.record("second") }
        _ = timer.schedule(at: now + .milliseconds(40)) { fired.record("first") }
        timer.cancel(removed)
        await fired.wait(for: "second")
        #expect(fired.all == ["first", "second"])
        #expect(timer.waiting == 1)
        timer.cancel(far)
        #expect(timer.waiting == 0)
    }

    @Test func deadlinesFireInTheirOrderAndEachOnce() async {
        let timer = DeadlineTimer(), fired = Fired(), now = NIODeadline.now()
        // Made in reverse order, due 15 ms apart (more than the timer's slack of 10 ms).
        for index in (0..<8).reversed() {
            _ = timer.schedule(at: now + .milliseconds(Int64(15 * (index + 1)))) { fired.record("\(index)") }
        }
        await fired.wait(for: "7")
        #expect(fired.all == (0..<8).map { "\($0)" })
        #expect(timer.waiting == 0)
        // Past its last deadline the timer's task has ended; a new deadline starts another.
        let again = NIODeadline.now()
        _ = timer.schedule(at: again + .milliseconds(5)) { fired.record("again") }
        await fired.wait(for: "again")
        #expect(fired.all.last == "again" && fired.all.count == 9)
    }
}
