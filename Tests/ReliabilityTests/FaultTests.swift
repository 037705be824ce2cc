import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing

/// Disk limits, files that vanish or lose their WAL, damaged and foreign files.
@Suite(.serialized)
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

    @Test func aMissingWALOrSharedMemoryFileIsRecreated() throws {
        let path = try seeded("wal.sqlite3")
        for (round, suffix) in ["-wal", "-shm"].enumerated() {
            try? FileManager.default.removeItem(atPath: path + suffix)
            let database = try ArchiveDatabase(path: path)
            #expect(try database.favorites.count() == 100 + round)
            try database.favorites.create(StoredArchiveObject(id: 900 + round, photoUrl: "u", category: "c", dishName: "d", shopName: "s", introduction: "i"))
            #expect(try database.integrityReport().isOK)
        }
    }

    @Test func aFileDeletedWhileOpenKeepsServingItsConnectionAndANewOpenStartsFresh() throws {
        let path = try seeded("deleted.sqlite3")
        let database = try ArchiveDatabase(path: path)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        // The open connection still reads its (now unlinked) file; writes either work or fail clearly.
        #expect(try database.favorites.count() == 100)
        do {
            try database.favorites.create(StoredArchiveObject(id: 500, photoUrl: "u", category: "c", dishName: "d", shopName: "s", introduction: "i"))
        } catch let error as SQLiteError {
            #expect(!error.description.isEmpty)
        }
        let fresh = try ArchiveDatabase(path: path)
        #expect(try fresh.favorites.count() == 0)
    }

    @Test func aFileReplacedWhileOpenIsNotCorruptedByTheOldConnection() throws {
        let path = try seeded("replaced.sqlite3")
        let other = try seeded("other.sqlite3", count: 7)
        let database = try ArchiveDatabase(path: path)
        #expect(try database.favorites.count() == 100)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: other + suffix) }
        _ = rename(other, path)
        let reopened = try ArchiveDatabase(path: path)
        #expect(try reopened.favorites.count() == 7)
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
