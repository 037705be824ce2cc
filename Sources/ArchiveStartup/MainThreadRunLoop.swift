import Dispatch
#if canImport(Glibc)
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
    /// Where the loop cannot wait (libdispatch's two calls are not found, see
    /// ``RuntimeSymbol``, it gives no descriptor, or `poll` fails for another reason
    /// than a signal), the main queue is left to `dispatch_main()`, exactly as an async
    /// `main` would: nothing already queued is lost.
    ///
    /// - Parameter body: What the process does, on the main actor.
    public static func run(_ body: @escaping @MainActor () async -> Void) -> Never {
        #if os(Linux)
        let drain = DispatchMainQueueDrain()
        #endif
        Task { @MainActor in
            await body()
            exit(0)
        }
        #if os(Linux)
        guard let drain else { dispatchMain() }
        while true {
            drain.drain()
            var descriptor = pollfd(fd: drain.handle, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, -1) >= 0 || errno == EINTR else { dispatchMain() }
            // Reset the eventfd before the queue is served: work queued after this read
            // makes it readable again, so none waits for another wakeup.
            var count: UInt64 = 0
            _ = read(drain.handle, &count, MemoryLayout<UInt64>.size)
        }
        #else
        dispatchMain()
        #endif
    }
}
