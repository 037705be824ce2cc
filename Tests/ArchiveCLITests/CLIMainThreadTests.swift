import Foundation
import SQLite
import TestSupport
import Testing

/// The short commands (`search`, `add`, `remove`, as ``CommandLineShortcut`` reads them) run
/// all their tasks on the main thread: the process starts no thread of its own.
/// (`MainThreadRunLoopTests` checks the loop that keeps them there.)
struct CLIMainThreadTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    /// `archive add` waits for another writer's transaction, and while it waits (its insert
    /// runs in the store's effect, a task, sleeping between SQLite's busy retries) the process
    /// has one thread, its main thread: with the global executor's threads the insert waited
    /// on a worker, beside libdispatch's manager and a second worker (four threads).
    /// Once the other writer commits, the add lands.
    @Test func anAddWaitingForTheDatabaseRunsOnTheMainThreadAlone() throws {
        #expect(try cli.run(["search", "--category", "洋食"]).status == 0)  // creates and migrates the file
        let writer = try Database(path: cli.database)
        try writer.execute("BEGIN IMMEDIATE")
        let add = try ChildProcess(
            CLI.executable.path, ["add", "21", "--database", cli.database], environment: cli.environment())
        // Polled until a thread of the add sleeps in SQLite's busy handler (`hrtimer_nanosleep`:
        // the insert is waiting for the writer), with a deadline inside the add's 5 s busy timeout.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(4))
        var waiting: (thread: String, threads: [String])?
        while waiting == nil, clock.now < deadline {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(add.pid)/task")) ?? []
            for thread in threads {
                let wchan = try? String(contentsOfFile: "/proc/\(add.pid)/task/\(thread)/wchan", encoding: .utf8)
                if wchan == "hrtimer_nanosleep" { waiting = (thread, threads) }
            }
            sched_yield()
        }
        try writer.execute("COMMIT")
        let result = add.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let seen = try #require(waiting, "archive add was never seen waiting for the database")
        #expect(seen.thread == String(add.pid), "the insert waited on thread \(seen.thread), not the main thread")
        #expect(seen.threads == [String(add.pid)], "archive add had threads \(seen.threads) while it waited")
        let stored = try #require(try cli.run(["favorites", "--json"]).json() as? [String: Any])
        #expect((stored["favorites"] as? [[String: Any]])?.map { $0["id"] as? Int } == [21])
    }
}
