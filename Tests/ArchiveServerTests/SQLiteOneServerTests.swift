import Foundation
import ArchiveSyncModel
import TestSupport
import Testing

/// The SQLite backend is one process by construction (one writer; each process's event
/// streams and page sessions are its own): a second `archive-server serve` on the file a
/// server serves is refused at start, naming the first one's process and pointing to
/// PostgreSQL for several servers, and the first serves on (before: both ran, and neither
/// heard the other's pushes on its open streams). A restore is refused under either.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct SQLiteOneServerTests {
    @Test func aSecondServerOnTheSameFileIsRefusedAtStart() throws {
        let first = try ServiceProcess(.sqlite)
        let token = try first.addUser("alice")
        let second = try ChildProcess.run(
            ServiceProcess.executable.path, ["--database", first.database, "--port", "0"],
            environment: ServiceProcess.environment(first.directory), timeout: .seconds(60))
        #expect(second.status == 1 && second.stdout.isEmpty, "it never listened: \(second.stdout)")
        #expect(second.stderr.contains("another archive-server (pid \(first.process.pid)) already serves \(first.database): the SQLite backend is one process"), "\(second.stderr)")
        #expect(second.stderr.contains("use PostgreSQL (--postgres"), "\(second.stderr)")
        // The first serves on.
        #expect(try first.pull(device: Changes.device(0x51), token: token).0.status == 200)
        // Under a running service a restore is refused, naming it too.
        let backup = first.directory.path("backup.sqlite3")
        #expect(try first.admin(["backup", backup]).status == 0)
        let restore = try first.admin(["restore", backup])
        #expect(restore.status != 0 && restore.stderr.contains("archive-server (pid \(first.process.pid)) serves"), "\(restore.stderr)")
        // Once it has stopped, a server starts on the file again.
        #expect(first.stop()?.status == 0)
        let again = try ServiceProcess(.sqlite, database: first.database, directory: first.directory)
        #expect(try again.pull(device: Changes.device(0x51), token: token).0.status == 200)
    }
}
