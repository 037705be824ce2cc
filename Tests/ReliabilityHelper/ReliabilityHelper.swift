import ArchiveCore
import ArchiveTransfer
import ArchiveStorage
import Dispatch
import Foundation
import ArchiveStartup
#if canImport(Glibc)
import Glibc
import SQLite
#endif
import ArchiveSyncModel

/// A child process for the reliability tests: it writes to a database and says
/// on stdout (unbuffered) what it has committed, so that a test can kill it at
/// any moment and then check that every acknowledged write survived.
///
///     reliability-helper ack-writes DB FIRST_ID     store FIRST_ID, FIRST_ID+1... forever; "ack ID" after each commit
///     reliability-helper import DB FILE [LIMIT]     import FILE; "progress N" while storing; LIMIT caps the file size (RLIMIT_FSIZE)
///     reliability-helper churn DB INDEX OPS [GOFILE] OPS stores/removes in its own ID range and flips key "flag.INDEX";
///                                                     with GOFILE (a FIFO), says "half" halfway and waits until the test holds it open
///     reliability-helper churn-until DB STOPFILE     stores and removes one favorite (ID 1,000,001) until STOPFILE
///                                                     exists, then stores 50 more; says "done N" (N: the operations)
///     reliability-helper main-thread STATUS [tasks-on-main-thread]
///                                                     MainThreadRunLoop: says where the main actor (and the
///                                                     detached tasks) run, then ends with STATUS
@main
enum ReliabilityHelper {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            switch arguments.first {
            case "ack-writes" where arguments.count == 3:
                try ackWrites(path: arguments[1], firstID: Int(arguments[2]) ?? 1)
            case "import" where arguments.count >= 3:
                if arguments.count == 4, let limit = Int(arguments[3]) { limitFileSize(to: limit) }
                try importFile(path: arguments[1], file: arguments[2])
            case "churn" where arguments.count == 4 || arguments.count == 5:
                try churn(path: arguments[1], index: Int(arguments[2]) ?? 0, operations: Int(arguments[3]) ?? 0,
                          halfwayGate: arguments.count == 5 ? arguments[4] : nil)
            case "churn-until" where arguments.count == 3:
                try churn(path: arguments[1], untilExists: arguments[2])
            case "main-thread" where arguments.count == 2 || (arguments.count == 3 && arguments[2] == "tasks-on-main-thread"):
                mainThread(status: Int32(arguments[1]) ?? 1, keepingTasksOnMainThread: arguments.count == 3)
            default:
                fail("usage: reliability-helper ack-writes DB FIRST_ID | import DB FILE [LIMIT] | churn DB INDEX OPS [GOFILE] | churn-until DB STOPFILE | main-thread STATUS [tasks-on-main-thread]")
            }
        } catch {
            fail("\(error)")
        }
    }

    /// Runs the main actor through ``MainThreadRunLoop``: says on which thread it runs at the
    /// start and after each of 100 hops off it (detached tasks, one resume from a dispatch queue),
    /// and how many of those tasks ran on the main thread, then returns (status 0) or exits with `status`.
    static func mainThread(status: Int32, keepingTasksOnMainThread: Bool) -> Never {
        let main = pthread_self()  // `main()` runs on the main thread
        // Tasks kept on the main thread prefer the executor that runs jobs on the main queue.
        let executor: (any TaskExecutor)? = keepingTasksOnMainThread ? MainQueueTaskExecutor.shared : nil
        MainThreadRunLoop.run {
            say("main actor on the main thread: \(pthread_equal(pthread_self(), main) != 0)")
            var sum = 0
            var onMainThread = 0
            for hop in 0..<100 {
                let (value, onMain) = await Task.detached(executorPreference: executor) {
                    (hop, pthread_equal(pthread_self(), main) != 0)
                }.value
                sum += value
                if onMain { onMainThread += 1 }
                if hop == 50 {
                    // A resume from outside the task pool: a libdispatch queue wakes the main queue.
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().async { continuation.resume() }
                    }
                }
                if pthread_equal(pthread_self(), main) == 0 { say("hop \(hop) resumed off the main thread") }
            }
            say("after 100 hops: \(sum), on the main thread: \(pthread_equal(pthread_self(), main) != 0)")
            say("detached tasks that ran on the main thread: \(onMainThread)")
            if status != 0 { exit(status) }
        }
    }

    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        exit(1)
    }

    static func object(_ id: Int) -> StoredArchiveObject {
        StoredArchiveObject(
            id: id, photoUrl: "https://p/\(id).jpg", category: "和食", dishName: "料理 \(id)", shopName: "店",
            introduction: "紹介 \(id)")
    }

    static func ackWrites(path: String, firstID: Int) throws {
        let database = try ArchiveDatabase(path: path)
        var id = firstID
        let parent = getppid()
        while getppid() == parent {  // killed by the test; gone with it if it died first
            try database.favorites.create(object(id))
            if id % 10 == 0 { try database.keyValueStore.set(id, for: KeyValueStore.Key<Int>("lastTenth", default: 0)) }
            say("ack \(id)")
            id += 1
        }
    }

    static func importFile(path: String, file: String) throws {
        let database = try ArchiveDatabase(path: path)
        let summary = try FavoritesImporter(path: file).run(into: database.favorites) { progress in
            if progress.phase == .importing { say("progress \(progress.records)") }
        }
        say("imported \(summary.records)")
    }

    static func limitFileSize(to bytes: Int) {
        signal(SIGXFSZ, SIG_IGN)  // writes past the limit fail with EFBIG instead of killing us
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    }

    /// The churns' connections: their cases are about locks and snapshots between processes,
    /// not power cuts, so their ten thousand commits are not each synced (the `archive`
    /// processes beside them are).
    static var unsyncedCommits: Configuration {
        var configuration = Configuration()
        configuration.synchronous = .normal
        return configuration
    }

    /// Stores and removes IDs of its own range, then stores 1...50 of it; flips its flag each operation.
    static func churn(path: String, index: Int, operations: Int, halfwayGate: String?) throws {
        let database = try ArchiveDatabase(path: path, configuration: unsyncedCommits)
        let base = (index + 1) * 1_000_000
        let flag = KeyValueStore.Key<Bool>("flag.\(index)", default: false)
        for operation in 0..<operations {
            if operation == operations / 2, let gate = halfwayGate {
                // Every writer is halfway at once: the test opens the gate once all have said so.
                say("half")
                // The gate is a FIFO: opening it for reading waits until the test holds it open.
                let reader = open(gate, O_RDONLY | O_CLOEXEC)
                guard reader >= 0 else { fail("cannot open the gate \(gate): \(String(cString: strerror(errno)))") }
                close(reader)
            }
            let id = base + operation / 2 + 1
            if operation % 2 == 0 {
                try database.favorites.create(object(id))
            } else {
                try database.favorites.delete(id: id)
            }
            try database.keyValueStore.set(operation % 2 == 0, for: flag)
        }
        try database.favorites.create(contentsOf: (1...50).map { object(base + $0) })
        say("done \(operations)")
    }

    /// Stores and removes one favorite, a transaction each, until `stopFile` exists (the
    /// reader's signal that it has read enough beside the writer), then stores 50 favorites.
    ///
    /// It spins for as long as the reader takes, and in a parallel test run the reader waits
    /// its turn for minutes: at normal priority the writer then burned a core of its own
    /// the whole time (`perf record -a` of `swift test`: 12 % of the run's CPU). At the lowest
    /// priority it runs as fast as ever on an idle core and takes only what nothing else wants.
    static func churn(path: String, untilExists stopFile: String) throws {
        lowerPriority()
        let database = try ArchiveDatabase(path: path, configuration: unsyncedCommits)
        let base = 1_000_000
        var operations = 0
        let parent = getppid()
        while access(stopFile, F_OK) != 0 {
            // A test that died (or whose directory is gone) never creates the file: the
            // helper must not outlive it, spinning.
            if getppid() != parent { exit(3) }
            if operations % 2 == 0 {
                try database.favorites.create(object(base + 1))
            } else {
                try database.favorites.delete(id: base + 1)
            }
            operations += 1
        }
        if operations % 2 == 1 { try database.favorites.delete(id: base + 1) }
        try database.favorites.create(contentsOf: (2...51).map { object(base + $0) })
        say("done \(operations)")
    }

    /// Gives this process the lowest scheduling priority (nice 19).
    static func lowerPriority() {
        #if canImport(Glibc)
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) != 0 {
            fail("cannot lower the helper's priority: \(String(cString: strerror(errno)))")
        }
        #endif
    }
}
