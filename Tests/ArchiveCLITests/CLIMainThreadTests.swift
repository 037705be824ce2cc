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
    /// runs in the store's effect, a task) the process has one thread: with the global
    /// executor's threads it had four (a worker, libdispatch's manager and a second worker).
    /// Once the other writer commits, the add lands.
    @Test func anAddWaitingForTheDatabaseRunsOnTheMainThreadAlone() throws {
        #expect(try cli.run(["search", "--category", "洋食"]).status == 0)  // creates and migrates the file
        let writer = try Database(path: cli.database)
        try writer.execute("BEGIN IMMEDIATE")
        let add = try ChildProcess(
            CLI.executable.path, ["add", "21", "--database", cli.database], environment: cli.environment())
        // For one second of the add's 5 s busy timeout, with the writer holding the lock: the
        // most threads the add had, read from /proc every 5 ms (a window to look through, not a
        // wait for a result: the add's own end is awaited below).
        var mostThreads = 0
        let clock = ContinuousClock()
        let until = clock.now.advanced(by: .seconds(1))
        while clock.now < until {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(add.pid)/task")) ?? []
            mostThreads = max(mostThreads, tasks.count)
            usleep(5_000)
        }
        try writer.execute("COMMIT")
        let result = add.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(mostThreads == 1, "archive add had \(mostThreads) threads while it waited for the database")
        let stored = try #require(try cli.run(["favorites", "--json"]).json() as? [String: Any])
        #expect((stored["favorites"] as? [[String: Any]])?.map { $0["id"] as? Int } == [21])
    }
}
