import Dispatch
#if os(Linux)
import CDispatchMainQueue
import Glibc
#endif

/// The main thread serving the main queue, and so the main actor, itself: what an
/// async `main` does, without handing the main queue to another thread.
///
/// On Linux an async `main` ends in `dispatch_main()`, which exits the main thread
/// (`pthread_exit`: the thread's stack is unwound, reading the binary's `.eh_frame`)
/// and leaves the main queue to a new libdispatch thread. For a command that lives
/// a few milliseconds that is measurable, if small: about 0.2 ms and 16 page faults
/// of a cold `archive search` (docs/PERFORMANCE.md; the floors line of BENCHMARKS.md times a
/// program that awaits one task, with and without this loop).
/// Here the main thread waits on the main queue's eventfd and runs what the queue
/// holds, as CoreFoundation's run loop does with the same two libdispatch calls, so
/// main-actor code also runs on the main thread, as on Darwin.
public enum MainThreadRunLoop {
    /// Runs `body` on the main actor, the calling (main) thread serving the main queue,
    /// then exits the process with status 0 when `body` returns (as an async `main`
    /// does); `body` may also exit the process itself, with another status.
    ///
    /// Where the loop cannot wait (libdispatch gives no descriptor, or `poll` fails
    /// for another reason than a signal), the main queue is left to `dispatch_main()`,
    /// exactly as an async `main` would: nothing already queued is lost.
    ///
    /// - Parameters:
    ///   - keepingTasksOnMainThread: Whether every job the Swift runtime would give its
    ///     global concurrent executor (detached and unstructured tasks, nonisolated async
    ///     functions, default actors) runs on the main queue too, so that the process
    ///     starts no worker thread of its own: libdispatch's pool starts a worker, its
    ///     manager thread, an epoll and a timer on first use, 1.5 to 2.7 ms of a
    ///     cold `archive search` (docs/PERFORMANCE.md). Only for a body that awaits its work and never
    ///     blocks a thread waiting for a task: that task would now wait for the
    ///     blocked thread. `Task.sleep` keeps the runtime's own path; libraries'
    ///     threads (SwiftNIO's event loops) are unaffected, their results come back
    ///     through the main queue.
    ///   - body: What the process does, on the main actor.
    public static func run(
        keepingTasksOnMainThread: Bool = false, _ body: @escaping @MainActor () async -> Void
    ) -> Never {
        #if os(Linux)
        let handle = _dispatch_get_main_queue_handle_4CF()
        // Only with a loop to serve them (below); dispatch_main() would serve them too,
        // but from a thread of its own, which is what this is meant to avoid.
        if keepingTasksOnMainThread, handle >= 0 { favorite_archive_keep_global_jobs_on_main_queue() }
        #endif
        Task { @MainActor in
            await body()
            exit(0)
        }
        #if os(Linux)
        guard handle >= 0 else { dispatchMain() }
        while true {
            _dispatch_main_queue_callback_4CF(nil)
            var descriptor = pollfd(fd: handle, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, -1) >= 0 || errno == EINTR else { dispatchMain() }
            // Reset the eventfd before the queue is served: work queued after this read
            // makes it readable again, so none waits for another wakeup.
            var count: UInt64 = 0
            _ = read(handle, &count, MemoryLayout<UInt64>.size)
        }
        #else
        dispatchMain()
        #endif
    }
}
