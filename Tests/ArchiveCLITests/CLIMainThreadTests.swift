import Foundation
import SQLite
import TestSupport
import Testing

/// The short commands (`search`, `add`, `remove`, as ``CommandLineShortcut`` reads them) run
/// all their tasks on the main thread: the process starts no thread of its own.
/// (`MainThreadRunLoopTests` checks the loop that keeps them there.)
@Suite(.blockingWork, .timeLimit(.minutes(5)))
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
    ///
    /// With the start-up symbols made absent (`ARCHIVE_STARTUP_FALLBACK`, as a runtime without
    /// them would be), the same add lands too, waiting on one of the runtime's own threads:
    /// which shows the variable takes the fallback path that the other tests of the short
    /// commands run through (`CLIStartupFallbackTests`).
    @Test(arguments: [false, true])
    func anAddWaitingForTheDatabaseRunsOnTheMainThreadAlone(startupFallback: Bool) throws {
        #expect(try cli.run(["search", "--category", "洋食"]).status == 0)  // creates and migrates the file
        let writer = try Database(path: cli.database)
        try writer.execute("BEGIN IMMEDIATE")
        let add = try ChildProcess(
            CLI.executable.path, ["add", "21", "--database", cli.database],
            environment: cli.environment(startupFallback ? ["ARCHIVE_STARTUP_FALLBACK": "1"] : [:]))
        // Polled until a thread of the add sleeps in SQLite's busy handler (a nanosleep system
        // call: the insert is waiting for the writer), or until the add has ended. Its busy
        // timeout (5 s) starts when the insert first meets the lock, however long the start
        // took, and the add sleeps through most of it: no deadline of the test's own races it.
        var waiting: (thread: String, threads: [String])?
        while waiting == nil, !add.hasExited {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(add.pid)/task")) ?? []
            for thread in threads where Self.isSleeping(pid: add.pid, thread: thread) {
                waiting = (thread, threads)
            }
            sched_yield()
        }
        try writer.execute("COMMIT")
        let result = add.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let seen = try #require(waiting, "archive add was never seen waiting for the database")
        if startupFallback {
            #expect(seen.thread != String(add.pid), "with the fallback the insert waits on the runtime's threads")
        } else {
            #expect(seen.thread == String(add.pid), "the insert waited on thread \(seen.thread), not the main thread")
            #expect(seen.threads == [String(add.pid)], "archive add had threads \(seen.threads) while it waited")
        }
        let stored = try #require(try cli.run(["favorites", "--json"]).json() as? [String: Any])
        #expect((stored["favorites"] as? [[String: Any]])?.map { $0["id"] as? Int } == [21])
    }

    /// Whether thread `thread` of process `pid` is blocked in `nanosleep` or `clock_nanosleep`
    /// (x86_64 system calls 35 and 230; aarch64 101 and 115), as `/proc/PID/task/TID/syscall`
    /// says: the first field is the number of the system call it is blocked in.
    static func isSleeping(pid: pid_t, thread: String) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/syscall", encoding: .utf8),
              let number = text.split(separator: " ").first.flatMap({ Int($0) }) else { return false }
        #if arch(x86_64)
        return number == 35 || number == 230
        #else
        return number == 101 || number == 115
        #endif
    }
}
