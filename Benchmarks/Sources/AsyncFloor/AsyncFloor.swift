// The Swift runtime's floor for a command that awaits work off the main thread,
// as every `archive` command does (its store's effects run as tasks, and its
// store lives on the main actor). process.sh times it beside the cold rows, both
// ways a program can serve its main actor:
//
//   AsyncFloor                 the main thread's own loop (MainThreadRunLoop), as `archive` runs
//                              its long commands (import, export, serve...)
//   AsyncFloor --tasks-on-main-thread
//                              the same loop, the task preferring MainQueueTaskExecutor (no worker
//                              thread), as `archive` runs the effects of `search`, `add` and `remove`
//   AsyncFloor --dispatch-main what an async `main` does on Linux: dispatch_main(), which ends
//                              the main thread and leaves the main queue to a libdispatch thread
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import ArchiveStartup

/// Awaits one detached task from the main actor, prints its value, exits.
@main
enum AsyncFloor {
    static func main() {
        let keepingTasks = CommandLine.arguments.dropFirst().first == "--tasks-on-main-thread"
        let executor: (any TaskExecutor)? = keepingTasks ? MainQueueTaskExecutor.shared : nil
        let work: @MainActor () async -> Void = {
            let value = await Task.detached(executorPreference: executor) { 42 }.value
            print(value)
        }
        if CommandLine.arguments.dropFirst().first == "--dispatch-main" {
            Task { @MainActor in
                await work()
                exit(0)
            }
            dispatchMain()
        }
        MainThreadRunLoop.run(work)
    }
}
