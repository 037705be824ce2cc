import Dispatch

/// A task executor that runs every job on the main queue, which `archive`'s main thread
/// serves (``MainThreadRunLoop``): a task that prefers it (`Task(executorPreference:)`)
/// runs its nonisolated code, and its child tasks', on the main thread instead of the
/// runtime's global executor, whose first use starts libdispatch's worker threads and
/// its manager thread (about a millisecond of a cold `archive search`: docs/PERFORMANCE.md).
///
/// Public API only (SE-0417's task executors), so nothing here can fail a link or change
/// with the runtime. For work that awaits one thing at a time: a job that blocked the main
/// thread waiting for another job on this executor would wait forever.
public final class MainQueueTaskExecutor: TaskExecutor {
    /// The one instance.
    public static let shared = MainQueueTaskExecutor()

    private init() {}

    /// Runs `job` on the main queue, as a job of this executor.
    public func enqueue(_ job: UnownedJob) {
        let executor = asUnownedTaskExecutor()
        DispatchQueue.main.async { job.runSynchronously(on: executor) }
    }
}
