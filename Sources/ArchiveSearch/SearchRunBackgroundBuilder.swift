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
/// Given a fan-in, the thread also merges: it keeps the runs it built until it
/// holds that many, and hands them back merged into one (``SearchRunMerger``),
/// in memory, so the caller writes the merged run and never writes or reads
/// back the runs it was made of. The runs held since the last merge come back
/// separately at ``finish()``.
///
/// ```swift
/// let background = SearchRunBackgroundBuilder(capacity: 4096, mergingEvery: 4)
/// for built in background.exchange(&builder) { write(built.run) }  // builder: now empty
/// for built in background.finish() { write(built.run) }
/// ```
///
/// Only one thread may call ``exchange(_:)`` and ``finish()``.
public final class SearchRunBackgroundBuilder: Sendable {
    /// A run built (or merged) here, with how many favorites its builders were given.
    public struct Built: Sendable, Equatable {
        /// The run.
        public var run: SearchRun
        /// How many favorites were added to its builders (``SearchRunBuilder/count``, summed).
        public var members: Int
    }

    private struct State: Sendable {
        /// The builder handed over, until the build takes it.
        var submitted: SearchRunBuilder?
        /// The builder built last (emptied, its texts' room kept).
        var returned: SearchRunBuilder?
        /// The runs ready for the caller: a merged run, or none while runs are held.
        var ready: [Built] = []
        /// The runs built since the last merge (the thread's side only).
        var held: [Built] = []
        /// Whether a build was started and not yet waited for (the caller's side only).
        var building = false
        /// The sort buffers, between builds: a builder that holds nothing else.
        var buffers = SearchRunBuilder()
    }

    private let state = Mutex(State())
    /// The room of the second builder, made at the first exchange.
    private let capacity: Int
    /// How many runs are merged into one before they are handed back (below 2: none).
    private let fanIn: Int
    private let queue = DispatchQueue(label: "FavoriteArchive.SearchRunBackgroundBuilder")
    private let done = DispatchSemaphore(value: 0)

    /// A builder thread with nothing to build yet; the caller's second builder
    /// gets room for `capacity` favorites (``SearchRunBuilder/init(capacity:)``).
    /// With a `fanIn` of 2 or more, every `fanIn` runs built come back merged.
    public init(capacity: Int = 0, mergingEvery fanIn: Int = 0) {
        self.capacity = capacity
        self.fanIn = fanIn
    }

    /// Hands the full `builder` over to be built, leaving an empty builder in its
    /// place (the one built before, its room kept, or a new one), and returns the
    /// runs ready before it, waiting for the build handed over before if it is
    /// not done: that build's run, a merged run, or none while runs are held for
    /// a merge (none on the first call).
    public func exchange(_ builder: inout SearchRunBuilder) -> [Built] {
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

    /// Waits for the run handed over last and returns every run not yet
    /// returned, in the order their builders were handed over: the runs held
    /// for a merge come back as they were built.
    public func finish() -> [Built] {
        let ready = wait()
        return ready + state.withLock { state in
            var held: [Built] = []
            swap(&held, &state.held)
            return held
        }
    }

    private func wait() -> [Built] {
        guard state.withLock({ $0.building }) else { return [] }
        done.wait()
        return state.withLock { state in
            state.building = false
            var ready: [Built] = []
            swap(&ready, &state.ready)
            return ready
        }
    }

    /// On ``queue``: builds the submitted builder with the shared sort buffers,
    /// and merges the runs held when they reach the fan-in.
    private func buildSubmitted() {
        var builder: SearchRunBuilder? = state.withLock { state in
            var builder = state.submitted.take()
            builder?.swapSortBuffers(with: &state.buffers)
            return builder
        }
        let members = builder?.count ?? 0
        let run = builder?.build()
        let built = run.map { Built(run: $0, members: members) }
        var held = state.withLock { state in
            builder?.swapSortBuffers(with: &state.buffers)
            // Moved, not copied: the caller may fill it before this function returns.
            state.returned = builder.take()
            var held: [Built] = []
            swap(&held, &state.held)
            return held
        }
        var ready: [Built] = []
        if let built {
            if fanIn < 2 {
                ready = [built]
            } else {
                held.append(built)
                if held.count >= fanIn {
                    ready = Self.merged(held)
                    held = []
                }
            }
        }
        state.withLock { state in
            state.held = held
            state.ready = ready
        }
        done.signal()
    }

    /// `runs` merged into one, in memory; or `runs` themselves, should a merge
    /// fail (runs just built decode, so it does not): written apart, they index
    /// the same favorites.
    static func merged(_ runs: [Built]) -> [Built] {
        let sources: [() throws -> SearchRunBlock?] = runs.map { built in
            var blocks = built.run.blocks.makeIterator()
            return { blocks.next() }
        }
        var blocks: [SearchRunBlock] = []
        var ids: [Int] = []
        do {
            try SearchRunMerger.merge(sources) { blocks.append($0) }
            for built in runs { ids += try built.run.memberIDs() }
        } catch {
            return runs
        }
        SearchIDSet.sortUnique(&ids)
        var members: [UInt8] = []
        SearchIDList.append(ids, to: &members)
        return [Built(run: SearchRun(blocks: blocks, members: members), members: runs.reduce(0) { $0 + $1.members })]
    }
}
