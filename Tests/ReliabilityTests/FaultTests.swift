import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// Disk limits, files that vanish or lose their WAL, damaged and foreign files.
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct FaultTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func seeded(_ name: String, count: Int = 100) throws -> String {
        let path = directory.path(name)
        let database = try ArchiveDatabase(path: path)
        try database.favorites.create(contentsOf: (1...count).map { id in
            StoredArchiveObject(id: id, photoUrl: "u", category: "c", dishName: "d\(id)", shopName: "s", introduction: "i")
        })
        return path
    }

    @Test func anImportThatHitsTheFileSizeLimitFailsCleanlyAndImportsNothing() throws {
        let path = try seeded("limited.sqlite3")
        let file = directory.path("import.json")
        try writeImportFile(file, firstID: 5_000_001, count: 50_000)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        let child = try helper(["import", path, file, String(size + 256 * 1024)])
        var lines: [String] = []
        while let line = child.nextLine() { lines.append(line) }
        let (status, stderr) = { let result = child.wait(); return (result.status, result.stderr) }()
        #expect(status == 1, "the import should have failed: \(lines)")
        #expect(stderr.contains("File too large"), "\(stderr)")
        let database = try ArchiveDatabase(path: path)
        #expect(try database.integrityReport().isOK)
        #expect(try database.favorites.count() == 100)
    }

    /// A writer killed with SIGKILL leaves a `-wal` holding committed frames that
    /// were never checkpointed into the main file; losing `-shm` (the WAL index)
    /// must not lose them: SQLite rebuilds the index from the WAL.
    @Test func committedFramesInTheWALSurviveALostSharedMemoryFile() throws {
        let path = try seeded("wal.sqlite3")
        let child = try helper(["ack-writes", path, "1000"])
        var acknowledged: [Int] = []
        while acknowledged.count < 30, let line = child.nextLine() {
            if line.hasPrefix("ack "), let id = Int(line.dropFirst(4)) { acknowledged.append(id) }
        }
        child.kill()
        #expect(acknowledged.count == 30, "the writer stopped early: \(child.wait().stderr)")
        let walSize = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        #expect(walSize > 4096, "the kill should leave a WAL holding committed frames")
        let mainFile = FileSnapshot(path: path)
        let withoutWAL = try ArchiveDatabase.migrationStatus(path: path)  // the main file alone, read-only
        #expect(withoutWAL.applied.count == (try ArchiveMigrations.all()).count)
        #expect(mainFile.isUnchanged, "a read-only look at the database changed its main file (a checkpoint?)")
        try FileManager.default.removeItem(atPath: path + "-shm")

        let database = try ArchiveDatabase(path: path)
        let stored = Set(try database.favorites.storedIDs(among: acknowledged))
        #expect(stored == Set(acknowledged), "acknowledged writes lost: \(Set(acknowledged).subtracting(stored).sorted())")
        #expect(try database.favorites.count() >= 100 + acknowledged.count)
        #expect(try database.integrityReport().isOK)
        #expect(FileManager.default.fileExists(atPath: path + "-shm"), "the index is recreated")
        try database.favorites.create(StoredArchiveObject(id: 900, photoUrl: "u", category: "c", dishName: "d", shopName: "s", introduction: "i"))
        #expect(try database.favorites.contains(id: 900))
    }

    /// The open connection keeps reading its unlinked file; a write through it is
    /// refused (SQLite notices the file moved: `SQLITE_READONLY_DBMOVED`) rather
    /// than going to a file nobody can open again; a new open starts a new database.
    @Test func aFileDeletedWhileOpenRefusesWritesAndANewOpenStartsFresh() throws {
        let path = try seeded("deleted.sqlite3")
        let database = try ArchiveDatabase(path: path)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(try database.favorites.count() == 100)
        let error = try #require(throws: SQLiteError.self) {
            try database.favorites.create(StoredArchiveObject(id: 500, photoUrl: "u", category: "c", dishName: "d", shopName: "s", introduction: "i"))
        }
        #expect(error.resultCode == .readOnly, "\(error)")
        #expect(error.extendedResultCode == .readOnlyDatabaseMoved, "\(error)")
        let fresh = try ArchiveDatabase(path: path)
        #expect(try fresh.favorites.count() == 0)
    }

    /// Another database renamed over the open one: the old connection still sees
    /// its own (now unlinked) file, its writes are refused, and the new file is
    /// never touched by it.
    @Test func aFileReplacedWhileOpenIsNotCorruptedByTheOldConnection() throws {
        let path = try seeded("replaced.sqlite3")
        let other = try seeded("other.sqlite3", count: 7)
        let old = try ArchiveDatabase(path: path)
        #expect(try old.favorites.count() == 100)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: other + suffix) }
        #expect(rename(other, path) == 0)
        let replacement = FileSnapshot(path: path)

        // The old connection, used after the rename.
        #expect(try old.favorites.count() == 100)
        let error = try #require(throws: SQLiteError.self) {
            try old.favorites.create(StoredArchiveObject(id: 555, photoUrl: "u", category: "c", dishName: "d", shopName: "s", introduction: "i"))
        }
        #expect(error.extendedResultCode == .readOnlyDatabaseMoved, "\(error)")
        #expect(replacement.isUnchanged, "the old connection wrote into the new file")

        let reopened = try ArchiveDatabase(path: path)
        #expect(try reopened.favorites.count() == 7)
        #expect(try !reopened.favorites.contains(id: 555))
        #expect(try reopened.integrityReport().isOK)
    }

    @Test func aTruncatedDatabaseIsReportedAndLeftUnchanged() throws {
        let path = try seeded("truncated.sqlite3", count: 5_000)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes = bytes.prefix(bytes.count / 2)
        try bytes.write(to: URL(fileURLWithPath: path))
        let snapshot = FileSnapshot(path: path)
        do {
            let database = try ArchiveDatabase(path: path)
            let report = try database.integrityReport()
            #expect(!report.isOK)
        } catch {
            #expect("\(error)".contains("malformed") || "\(error)".contains("not a database"), "\(error)")
        }
        #expect(snapshot.isUnchanged)
    }
}
