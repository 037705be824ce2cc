// libdispatch's two entry points for a run loop that serves the main queue on
// the main thread: what CoreFoundation's CFRunLoop calls on Linux (swift-corelibs-
// foundation, CFRunLoop.c), exported by every libdispatch of the toolchain, the
// static one included, but declared in none of its public headers. And the Swift
// concurrency runtime's hook for its global executor, which lets a short command
// run its tasks on that same main queue (MainThreadRunLoop, `keepingTasksOnMainThread`).

/// The file descriptor (an eventfd) that becomes readable when the main queue has work.
extern int _dispatch_get_main_queue_handle_4CF(void);

/// Runs what the main queue holds, on the calling thread (the main thread). `msg` is unused on Linux.
extern void _dispatch_main_queue_callback_4CF(void *msg);

// MARK: - The Swift runtime's global-executor hook
//
// Declared as the runtime declares them (swift/Runtime/Concurrency.h, ABI-stable,
// exported by libswift_Concurrency), with the Swift calling convention they use.

/// A job of the Swift concurrency runtime (opaque here).
typedef struct FavoriteArchiveSwiftJob FavoriteArchiveSwiftJob;

/// The runtime's own global enqueue, which the runtime hands to the hook.
typedef void (__attribute__((swiftcall)) *FavoriteArchiveEnqueueGlobalOriginal)(FavoriteArchiveSwiftJob *job);

/// When set, `swift_task_enqueueGlobal` calls this instead of enqueueing on the global
/// concurrent executor (libdispatch's global queues, served by worker threads).
extern void (__attribute__((swiftcall)) *swift_task_enqueueGlobal_hook)(
    FavoriteArchiveSwiftJob *job, FavoriteArchiveEnqueueGlobalOriginal original);

/// Enqueues a job on the main executor: the main queue.
extern void __attribute__((swiftcall)) swift_task_enqueueMainExecutor(FavoriteArchiveSwiftJob *job);

/// The hook: a job bound for the global concurrent executor goes to the main queue.
static void __attribute__((swiftcall)) favorite_archive_enqueue_global_on_main(
    FavoriteArchiveSwiftJob *job, FavoriteArchiveEnqueueGlobalOriginal original) {
    (void)original;
    swift_task_enqueueMainExecutor(job);
}

/// From now on, every job the runtime would give its global concurrent executor (a
/// detached or unstructured task, a nonisolated async function, a default actor's
/// work) runs on the main queue instead. Delayed jobs (`Task.sleep`) keep their own path.
static inline void favorite_archive_keep_global_jobs_on_main_queue(void) {
    swift_task_enqueueGlobal_hook = favorite_archive_enqueue_global_on_main;
}
