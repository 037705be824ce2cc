import ArchiveStorage
import ArchiveSyncWire
import Foundation
import TestSupport
import Testing

/// `archive-server`'s 200 to a push on its SQLite backend, and `archive sync --server`'s
/// "synced", come after what they acknowledge is on disk, watched under strace on the real
/// binaries (docs/ARCHITECTURE.md, "Durability"). Seen red with `synchronous=NORMAL`: the
/// answer was written to the socket before the WAL's `fdatasync`.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServiceDurabilityTests {
    @Test func aPushIsOnDiskBeforeItsAnswer() throws {
        let directory = try TemporaryDirectory()
        let traceFile = directory.path("server-trace.txt")
        let server = try ServiceProcess(directory: directory, launcher: [try SyscallTrace.strace()] + SyscallTrace.options(output: traceFile))
        let token = try server.addUser("alice")
        let phone = Changes.device(1)
        for round in 1...3 {
            let pushed = try server.push([Changes.stored(round, at: Int64(round) * 1_000, by: phone)], device: phone, token: token)
            #expect(pushed.status == 200, "\(pushed.status) \(pushed.text)")
        }
        // strace does not pass SIGTERM on: the server itself is stopped, and strace ends with it.
        let traced = try String(contentsOfFile: "/proc/\(server.process.pid)/task/\(server.process.pid)/children", encoding: .utf8)
        for child in traced.split(separator: " ").compactMap({ pid_t($0) }) { kill(child, SIGTERM) }
        let stopped = try #require(server.process.wait(orKillAfter: .seconds(60)))
        #expect(stopped.status == 0, "\(stopped.stderr)")
        let trace = try SyscallTrace(contentsOf: traceFile)
        let keeps = SyscallTrace.databaseFiles(server.database)
        let answers = trace.socketWrites(containing: "applied")
        for index in answers {
            let unsynced = trace.unsynced(before: index, keeps: keeps)
            #expect(unsynced.isEmpty, "a push answered before these were on disk:\n\(unsynced.joined(separator: "\n"))")
        }
        #expect(answers.count == 3, "\(answers.count) push answers in the trace")
    }

    @Test func aSyncIsOnDiskBeforeItSaysSynced() throws {
        let directory = try TemporaryDirectory()
        let server = try ServiceProcess(directory: directory)
        let tokens = try server.addUserWithDevices("alice")
        let laptop = Changes.device(2)
        #expect(try server.push([Changes.stored(7, at: 1_000, by: laptop)], device: laptop, token: try tokens(laptop)).status == 200)
        let phone = directory.path("phone.sqlite3")
        _ = try ServiceProcess.archive(["add", "21"], database: phone, in: directory)
        var environment = ServiceProcess.environment(directory)
        environment["ARCHIVE_SYNC_TOKEN"] = try tokens.database(phone)
        let (trace, result) = try SyscallTrace.run(
            BuiltProduct.url(named: "archive").path, ["sync", "--server", server.url, "--database", phone],
            environment: environment, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let keeps = SyscallTrace.databaseFiles(phone)
        let acknowledgement = try #require(trace.firstWrite(containing: "synced", notTo: keeps), "\(result.stdout)")
        let unsynced = trace.unsynced(before: acknowledgement, keeps: keeps)
        #expect(unsynced.isEmpty, "synced before these were on disk:\n\(unsynced.joined(separator: "\n"))")
    }

    /// A PostgreSQL whose commits are not flushed (`fsync=off`, as the tests' own runs for
    /// speed) is named at start: the server's 200s could not survive a power cut there.
    @Test func aPostgreSQLWithoutFsyncIsNamedAtStart() throws {
        let server = try ServiceProcess(.postgres)
        let stopped = try #require(server.stop())
        #expect(stopped.stderr.contains("runs with fsync=off: a push answered 200 may be lost on a power cut"), "\(stopped.stderr)")
    }
}
