import Dispatch
import Synchronization

/// Builds search runs on a thread of its own, one at a time, while the caller
/// fills the next builder: a bulk store hands a full ``SearchRunBuilder`` over
/// and keeps storing favorites while the run is sorted.
///
/// Two builders take turns (one filled by the caller, one built here), and one
/// set of sort buffers serves every build: it is moved into each builder for
/// its build and back out after, so two builders cost their texts, not two sets
/// of buffers. Builders move in and out of the lock-protected slots whole
/// (never copied), so no build or fill copies another's bytes.
///
/// ```swift
/// let background = SearchRunBackgroundBuilder(capacity: 4096)
/// if let built = background.exchange(&builder) { write(built.run) }  // builder: now empty
/// if let built = background.finish() { write(built.run) }
/// ```
///
/// Only one thread may call ``exchange(_:)`` and ``finish()``.
public final class SearchRunBackgroundBuilder: Sendable {
    /// A run built here, with how many favorites its builder was given.
    public struct Built: Sendable {
        /// The run.
        public var run: SearchRun
        /// How many favorites were added to its builder (``SearchRunBuilder/count``).
        public var members: Int
    }

    private struct State: Sendable {
        /// The builder handed over, until the build takes it.
        var submitted: SearchRunBuilder?
        /// The builder built last (emptied, its texts' room kept) and its run.
        var returned: SearchRunBuilder?
        var built: Built?
        /// Whether a build was started and not yet waited for (the caller's side only).
        var building = false
        /// The sort buffers, between builds: a builder that holds nothing else.
        var buffers = SearchRunBuilder()
    }

    private let state = Mutex(State())
    /// The room of the second builder, made at the first exchange.
    private let capacity: Int
    private let queue = DispatchQueue(label: "FavoriteArchive.SearchRunBackgroundBuilder")
    private let done = DispatchSemaphore(value: 0)

    /// A builder thread with nothing to build yet; the caller's second builder
    /// gets room for `capacity` favorites (``SearchRunBuilder/init(capacity:)``).
    public init(capacity: Int = 0) {
        self.capacity = capacity
    }

    /// Hands the full `builder` over to be built, leaving an empty builder in its
    /// place (the one built before, its room kept, or a new one), and returns the
    /// run handed over before, waiting for its build if it is not done; `nil` on
    /// the first call.
    public func exchange(_ builder: inout SearchRunBuilder) -> Built? {
        let previous = wait()
        state.withLock { state in
            var full = state.returned.take() ?? SearchRunBuilder(capacity: capacity)
            swap(&full, &builder)
            state.submitted = full
            state.building = true
        }
        queue.async { self.buildSubmitted() }
        return previous
    }

    /// Waits for the run handed over last and returns it (`nil` when none waits).
    public func finish() -> Built? {
        wait()
    }

    private func wait() -> Built? {
        guard state.withLock({ $0.building }) else { return nil }
        done.wait()
        return state.withLock { state in
            state.building = false
            return state.built.take()
        }
    }

    /// On ``queue``: builds the submitted builder with the shared sort buffers.
    private func buildSubmitted() {
        var builder: SearchRunBuilder? = state.withLock { state in
            var builder = state.submitted.take()
            builder?.swapSortBuffers(with: &state.buffers)
            return builder
        }
        let members = builder?.count ?? 0
        let run = builder?.build()
        state.withLock { state in
            builder?.swapSortBuffers(with: &state.buffers)
            // Moved, not copied: the caller may fill it before this function returns.
            state.returned = builder.take()
            state.built = run.map { Built(run: $0, members: members) }
        }
        done.signal()
    }
}
