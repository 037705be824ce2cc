import Foundation
import TestSupport
import Testing

/// `MainThreadRunLoop`, `archive`'s entry point, in a process of its own (it never returns):
/// the main actor runs on the main thread from start to end, no wakeup is lost, and the
/// process ends with the status its body chose.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct MainThreadRunLoopTests {
    @Test(arguments: [0, 3] as [Int32], [false, true])
    func theMainActorRunsOnTheMainThreadToTheEnd(status: Int32, keepingTasksOnMainThread: Bool) throws {
        let path = BuiltProduct.url(named: "ReliabilityHelper").path
        let mode = keepingTasksOnMainThread ? ["tasks-on-main-thread"] : []
        let result = try ChildProcess.run(path, ["main-thread", String(status)] + mode, timeout: .seconds(60))
        #expect(result.status == status, "\(result.stderr)")
        // 100 hops through detached tasks (and a libdispatch queue) and back: each resumed on the main
        // thread, none waiting for a wakeup that never came (the timeout would end it). The detached
        // tasks run on the global executor's threads, or all on the main thread when the loop keeps them.
        #expect(result.stdout == """
            main actor on the main thread: true
            after 100 hops: 4950, on the main thread: true
            detached tasks that ran on the main thread: \(keepingTasksOnMainThread ? 100 : 0)

            """, "\(result.stdout)")
    }
}
