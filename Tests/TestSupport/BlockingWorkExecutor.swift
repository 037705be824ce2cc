import Foundation
public import Testing

/// Threads of the tests' own for test bodies that block: a synchronous test that waits
/// for a child process (`wait4`), a socket or a FIFO holds its thread for seconds.
///
/// On the Swift concurrency runtime's cooperative pool (one thread per core: two here)
/// two such tests at once left no thread for any other test's tasks: a deadline's timer,
/// an HTTP answer's continuation and the store's effects all waited behind them, so an
/// async test could exceed its time limit on a busy machine without anything being
/// wrong. Suites that block run here instead (``Trait/blockingWork``): every job on a
/// thread of its own, so that a blocked test never delays another.
public final class BlockingWorkExecutor: TaskExecutor, Sendable {
    /// The one executor of the test process.
    public static let shared = BlockingWorkExecutor()

    /// Runs `job` on a thread of its own: a job that blocks (a synchronous test body)
    /// holds only that thread. Jobs are few (a test body, each resumption of a
    /// suspended one), so a thread each costs the tests nothing they would notice,
    /// and needs no bookkeeping that a blocked job could get wrong.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.name = "blocking test work"
        thread.start()
    }
}

/// Runs a suite's tests (or a test) on ``BlockingWorkExecutor``, off the cooperative pool.
public struct BlockingWorkTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(BlockingWorkExecutor.shared) { try await function() }
    }
}

extension Trait where Self == BlockingWorkTrait {
    /// The test blocks its thread (child processes, sockets, FIFOs): run it on threads of
    /// its own (``BlockingWorkExecutor``), so that it never holds up other tests' tasks.
    public static var blockingWork: Self { BlockingWorkTrait() }
}

extension BlockingWorkExecutor {
    /// Runs `body`, which blocks (a wait on a socket or a child), on a thread of its own and
    /// returns its result: an async test waits for it without holding a cooperative thread
    /// that its own tasks need.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = "blocking test wait"
            thread.start()
        }
    }
}
