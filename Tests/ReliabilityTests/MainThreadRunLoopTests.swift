import Foundation
import TestSupport
import Testing

/// `MainThreadRunLoop`, `archive`'s entry point, in a process of its own (it never returns):
/// the main actor runs on the main thread from start to end, no wakeup is lost, and the
/// process ends with the status its body chose.
struct MainThreadRunLoopTests {
    @Test(arguments: [0, 3] as [Int32])
    func theMainActorRunsOnTheMainThreadToTheEnd(status: Int32) throws {
        let path = BuiltProduct.url(named: "ReliabilityHelper").path
        let result = try ChildProcess.run(path, ["main-thread", String(status)], timeout: .seconds(60))
        #expect(result.status == status, "\(result.stderr)")
        // 100 hops through detached tasks (and a libdispatch queue) and back: each resumed on the main
        // thread, none waiting for a wakeup that never came (the timeout would end it).
        #expect(result.stdout == """
            main actor on the main thread: true
            after 100 hops: 4950, on the main thread: true

            """, "\(result.stdout)")
    }
}
