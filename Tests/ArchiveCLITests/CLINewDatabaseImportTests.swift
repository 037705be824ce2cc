import Dispatch
import Foundation
import TestSupport
import Testing

/// `archive import` into a database that does not exist yet: built beside its path
/// with the rollback journal, switched to WAL and linked into place whole.
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct CLINewDatabaseImportTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    func importFile(ids: ClosedRange<Int>, badIndex: Int? = nil) throws -> String {
        let records = ids.enumerated().map { index, id in
            let storedAt = index == badIndex ? "\"yesterday\"" : "\"2026-01-01T00:00:00.000Z\""
            return #"{"id":\#(id),"photoUrl":"https://p/\#(id).jpg","category":"和食","dishName":"料理 \#(id)","shopName":"店","introduction":"紹介","storedAt":\#(storedAt)}"#
        }
        let path = cli.directory.path("in-\(UUID().uuidString).json")
        try ("[\n" + records.joined(separator: ",\n") + "\n]\n").write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// The entries of `directory`.
    func entries(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    /// Byte 18 of an SQLite file's header: 2 for WAL, 1 for the rollback journal.
    func writeVersion(_ path: String) throws -> UInt8? {
        try Data(contentsOf: URL(fileURLWithPath: path)).dropFirst(18).first
    }

    @Test func aNewDatabaseIsBuiltBesideItsPathAndPutInPlaceInWALMode() throws {
        let file = try importFile(ids: 1...3_000)
        let database = cli.directory.path("new/sub/favorites.sqlite3")  // its directory is created too
        let result = try cli.run(["import", file, "--database", database], useDatabase: false)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("imported 3000 favorites from 3000 records"))
        #expect(try entries(cli.directory.path("new/sub")) == ["favorites.sqlite3"], "a journal or the temporary file was left")
        #expect(try writeVersion(database) == 2)
        let listed = try cli.run(["favorites", "--json", "--database", database], useDatabase: false)
        #expect((try listed.json() as? [String: Any])?["total"] as? Int == 3_000)
        let check = try cli.run(["check", "--database", database], useDatabase: false)
        #expect(check.status == 0 && check.stdout.hasPrefix("ok"), "\(check.stdout)\(check.stderr)")
        // A second import goes into the database now in place (an ID repeated, one new).
        let again = try cli.run(["import", try importFile(ids: 3_000...3_001), "--database", database], useDatabase: false)
        #expect(again.status == 0, "\(again.stderr)")
        #expect((try cli.run(["favorites", "--json", "--database", database], useDatabase: false).json() as? [String: Any])?["total"] as? Int == 3_001)
    }

    /// A database name near NAME_MAX (255 bytes) leaves no room for the temporary
    /// file's longer name (`.NAME.new-PID-N`), or for that file's journal: the import
    /// opens the database in place. Every length from one whose temporary file and
    /// journal fit to the longest whose own journal fits (247), so the lengths where
    /// only the temporary file fits are among them, whatever the process ID's digits.
    @Test func aNameTooLongForTheTemporaryFileOrItsJournalIsImportedInPlace() throws {
        let file = try importFile(ids: 1...50)
        for length in 220...247 {
            let directory = cli.directory.path("long-\(length)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let name = String(repeating: "f", count: length)
            let result = try cli.run(["import", file, "--database", directory + "/" + name], useDatabase: false)
            #expect(result.status == 0, "\(length): \(result.stderr)")
            #expect(try entries(directory) == [name], "\(length)")
            let listed = try cli.run(["favorites", "--json", "--database", directory + "/" + name], useDatabase: false)
            #expect((try listed.json() as? [String: Any])?["total"] as? Int == 50, "\(length)")
        }
    }

    @Test func aBadRecordLeavesNoDatabaseAndNoTemporaryFile() throws {
        let file = try importFile(ids: 1...2_000, badIndex: 1_999)
        let directory = cli.directory.path("empty")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let result = try cli.run(["import", file, "--database", directory + "/favorites.sqlite3"], useDatabase: false)
        #expect(result.status == 1)
        #expect(result.stderr.contains("record 1999: field 'storedAt'"), "\(result.stderr)")
        let left = try entries(directory)
        #expect(left.isEmpty, "left \(left)")
    }

    @Test func aDanglingLinkIsFollowedAsEveryCommandFollowsIt() throws {
        let link = cli.directory.path("link.sqlite3")
        let target = cli.directory.path("target.sqlite3")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = try cli.run(["import", try importFile(ids: 1...5), "--database", link], useDatabase: false)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try writeVersion(target) == 2)
        #expect(!(try entries(cli.directory.url.path)).contains { $0.contains(".new-") })
    }

    @Test func anInMemoryDatabaseCreatesNoFile() throws {
        let before = try entries(cli.directory.url.path)
        let result = try cli.run(["import", try importFile(ids: 1...5), "--database", ":memory:"], useDatabase: false)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try entries(cli.directory.url.path).count == before.count + 1)  // the import file only
        // Nor in the working directory the child shares with this process.
        let created = FileManager.default.fileExists(atPath: ":memory:")
        if created { try FileManager.default.removeItem(atPath: ":memory:") }
        #expect(!created, "a file named :memory: was created")
    }

    /// Starts `archive import FIFO` into a new database in `directory` and returns once the
    /// build has begun: the import opens its input (a FIFO) only after creating the temporary
    /// file, and opening the FIFO's other end waits for that. The first records are written,
    /// the FIFO is left open. A child that never opens it is killed after a minute, and the
    /// FIFO opened for it, so the wait ends.
    func startBuild(in directory: String) throws -> (ChildProcess, Int32) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fifo = cli.directory.path("in-\(UUID().uuidString).fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let child = try ChildProcess(CLI.executable.path, ["import", fifo, "--database", directory + "/favorites.sqlite3"], environment: cli.environment())
        let pid = child.pid
        let watchdog = DispatchWorkItem {
            kill(pid, SIGKILL)
            _ = open(fifo, O_RDONLY | O_NONBLOCK)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        let writer = open(fifo, O_WRONLY | O_CLOEXEC)
        watchdog.cancel()
        let first = "[" + (1...100).map { #"{"id":\#($0),"photoUrl":"p","category":"c","dishName":"d","shopName":"s","introduction":"i"}"# }.joined(separator: ",") + ","
        _ = first.withCString { write(writer, $0, strlen($0)) }
        return (child, writer)
    }

    /// SIGKILL while the new database is being built: no database appears (its temporary
    /// file stays, as nothing can remove it then, and so does the spool of its piped input),
    /// and the next import removes the temporary file.
    @Test func aKilledBuildLeavesNoDatabaseAndTheNextImportRemovesItsFile() throws {
        let directory = cli.directory.path("killed")
        let (child, writer) = try startBuild(in: directory)
        defer { close(writer) }
        #expect(child.kill().status == 128 + SIGKILL)
        let abandoned = try entries(directory)
        #expect(abandoned.contains { $0.hasPrefix(".favorites.sqlite3.new-") }, "\(abandoned)")
        #expect(!abandoned.contains("favorites.sqlite3"))
        let spools = abandoned.filter { $0.hasPrefix(".import-spool-") }
        let again = try cli.run(["import", try importFile(ids: 1...10), "--database", directory + "/favorites.sqlite3"], useDatabase: false)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try entries(directory) == (["favorites.sqlite3"] + spools).sorted())
    }

    /// Ctrl-C while the new database is being built: the temporary file, its journal and
    /// the spool are removed, and no database appears.
    @Test func anInterruptedBuildLeavesNothing() throws {
        let directory = cli.directory.path("interrupted")
        let (child, writer) = try startBuild(in: directory)
        defer { close(writer) }
        #expect(try entries(directory).contains { $0.hasPrefix(".favorites.sqlite3.new-") }, "the build never began")
        child.signal(SIGINT)
        let result = child.wait()
        #expect(result.status == 128 + SIGINT, "\(result.stderr)")
        let left = try entries(directory)
        #expect(left.isEmpty, "left \(left)")
    }
}
