package import NIOCore
import NIOPosix
import Synchronization

/// One timer for every request's deadlines (``RequestDeadline``): a deadline is an entry in a
/// table, made and removed under a lock, and one task scheduled on a SwiftNIO event loop
/// wakes for the earliest.
///
/// A request used to start a timer task of its own for each deadline (the token check, the
/// body, the database's work), each sleeping by `Task.sleep`: a task started and cancelled,
/// a wake of the dispatch timer thread to arm it, a job to end it, three times a push, about a
/// fifth of the server's CPU under load (docs/PERFORMANCE.md, "One timer for every
/// deadline"). Nearly every deadline is removed long before it is due, so the wake is
/// rarely moved: only a deadline earlier than the planned wake moves it. A wake that finds
/// the deadline it came for removed plans the next for the earliest left, at most once
/// every ``slack``.
///
/// The wake is an event loop's scheduled task, not a task of the cooperative pool that
/// `Task.sleep` resumes on: a pool kept busy (by the requests themselves, or by tests) does
/// not hold a due deadline back.
package final class DeadlineTimer: Sendable {
    /// The timer every request's deadlines share, on one of SwiftNIO's shared event loops.
    package static let shared = DeadlineTimer()

    /// The least time between two wakes: a deadline fires up to this late when another was
    /// due just before it.
    package static let slack = TimeAmount.milliseconds(10)

    /// A deadline waiting to fire.
    private struct Entry {
        let due: NIODeadline
        let fire: @Sendable () -> Void
    }

    private struct State {
        var lastID: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        /// When the next wake is planned; `nil` when none is.
        var wake: NIODeadline?
        /// Which planned wake is the current one: an older one that runs anyway (its
        /// cancellation came too late) does nothing.
        var generation: UInt64 = 0
        var planned: Scheduled<Void>?
    }

    private let state = Mutex(State())
    private let loop: any EventLoop

    /// A timer whose wakes run on `loop`, by default one of SwiftNIO's shared event loops
    /// (a timer of its own: tests); requests use ``shared``.
    package init(on loop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()) {
        self.loop = loop
    }

    /// Calls `fire` once, at `due` or up to ``slack`` after (later on a busy machine, and
    /// then after every deadline due before it), unless ``cancel(_:)`` is called with the
    /// answer first. `fire` runs on the timer's event loop: it must not block.
    package func schedule(at due: NIODeadline, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            state.lastID += 1
            state.entries[state.lastID] = Entry(due: due, fire: fire)
            // The planned wake comes in time for this one: nothing more to do (the common case).
            if let wake = state.wake, wake <= due { return state.lastID }
            plan(due, in: &state)
            return state.lastID
        }
    }

    /// Removes the deadline `id` (``schedule(at:_:)``'s answer): it will not fire. Harmless when
    /// it has fired already.
    package func cancel(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// The number of deadlines waiting (tests).
    package var waiting: Int { state.withLock { $0.entries.count } }

    /// Plans the next wake at `wake`, in place of the one planned.
    private func plan(_ wake: NIODeadline, in state: inout State) {
        state.planned?.cancel()
        state.generation += 1
        state.wake = wake
        state.planned = loop.scheduleTask(deadline: wake) { [generation = state.generation] in self.wake(generation) }
    }

    /// A wake: fires what is due, in the order it was due, and plans the next wake for the
    /// earliest deadline left.
    private func wake(_ generation: UInt64) {
        let now = NIODeadline.now()
        let due = state.withLock { state -> [@Sendable () -> Void] in
            guard state.generation == generation else { return [] }
            // In the order they were due: a wake that came late (a busy machine) finds several.
            let ids = state.entries.compactMap { $0.value.due <= now ? $0.key : nil }
            let due = ids.compactMap { state.entries.removeValue(forKey: $0) }.sorted { $0.due < $1.due }.map(\.fire)
            if let earliest = state.entries.values.lazy.map(\.due).min() {
                plan(max(earliest, now + Self.slack), in: &state)
            } else {
                state.wake = nil
                state.planned = nil
            }
            return due
        }
        for fire in due { fire() }
    }
}
