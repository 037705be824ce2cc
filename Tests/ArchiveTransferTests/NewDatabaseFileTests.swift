import ArchiveStorage
@testable import ArchiveTransfer
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// ``NewDatabaseFile``: a new database is put in place whole, never over another file.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct NewDatabaseFileTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static let object = StoredArchiveObject(
        id: 7, photoUrl: "p", category: "c", dishName: "d", shopName: "s", introduction: "i", storedAt: Date(millisecondsSince1970: 0))

    @Test func aDatabaseThatAppearsDuringTheBuildIsLeftAloneAndTheBuildRefused() throws {
        let path = directory.path("favorites.sqlite3")
        let error = try #require(throws: FavoritesImportError.self) {
            try NewDatabaseFile(creating: path).build { database in
                try database.favorites.create(Self.object)
                // Another process creates the database meanwhile.
                try ArchiveDatabase(path: path).favorites.create(StoredArchiveObject(
                    id: 8, photoUrl: "p", category: "c", dishName: "theirs", shopName: "s", introduction: "i"))
            }
        }
        #expect(error == .databaseAppeared(path: path))
        #expect(error.description.contains("run the import again"))
        let theirs = try ArchiveDatabase(path: path)
        #expect(try theirs.favorites.allObjects().map(\.id) == [8])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).allSatisfy { !$0.contains(".new-") })
    }

    @Test func aFailedBuildLeavesNothing() throws {
        struct Failed: Error {}
        let path = directory.path("favorites.sqlite3")
        #expect(throws: Failed.self) {
            try NewDatabaseFile(creating: path).build { database in
                try database.favorites.create(Self.object)
                throw Failed()
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aBuiltDatabaseHoldsWhatWasStoredAndOpensInWALMode() throws {
        let path = directory.path("favorites.sqlite3")
        let count = try NewDatabaseFile(creating: path).build { database in
            try database.favorites.create(contentsOf: [Self.object])
        }
        #expect(count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["favorites.sqlite3"])
        let database = try ArchiveDatabase(path: path)
        #expect(try database.favorites.allObjects() == [Self.object])
        #expect(try database.integrityReport().isOK)
        #expect(try database.queue.read { db in try db.fetchOne("PRAGMA journal_mode") { try $0.column(String.self, at: 0) } } == "wal")
    }

    /// A build killed outright leaves its temporary file; the next build of the same
    /// database removes it (and its journal) once its process is gone, and only then.
    @Test func theFilesOfAKilledBuildAreRemovedByTheNext() throws {
        let child = try ChildProcess("/bin/true", [])
        let gone = child.pid
        #expect(child.wait().status == 0)  // reaped: a process ID no longer running
        let abandoned = [".favorites.sqlite3.new-\(gone)-1", ".favorites.sqlite3.new-\(gone)-1-journal"]
        let kept = [".favorites.sqlite3.new-\(getpid())-2", ".other.sqlite3.new-\(gone)-3", ".favorites.sqlite3.new-x-4"]
        for name in abandoned + kept { #expect(TestFile.create(atPath: directory.path(name), contents: Data("x".utf8))) }
        try NewDatabaseFile(creating: directory.path("favorites.sqlite3")).build { _ in }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(left == (kept + ["favorites.sqlite3"]).sorted())
    }

    @Test func aDirectoryThatCannotBeWrittenIsAClearError() throws {
        let path = directory.path("missing/favorites.sqlite3")
        let error = try #require(throws: FavoritesImportError.self) { try NewDatabaseFile(creating: path).build { _ in } }
        #expect(error.description.hasPrefix("cannot create the database \(path): No such file or directory"))
    }

    /// A file system without hard links (FAT answers `EPERM`) is found before the
    /// build: nothing is built, nothing is left, and the fallback answers instead.
    @Test func aFileSystemWithoutHardLinksTakesTheFallbackBeforeAnyWork() throws {
        let path = directory.path("favorites.sqlite3")
        for code in [EPERM, EOPNOTSUPP, ENOSYS] {
            let noLinks = NewDatabaseFile(creating: path, linkFile: { _, _ in errno = code; return -1 })
            var built = false
            let answer = try noLinks.build({ _ in built = true; return "built" }, withoutHardLinks: { "fallback" })
            #expect(answer == "fallback" && !built)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
            // Without a fallback, a clear error naming the database.
            let error = try #require(throws: FavoritesImportError.self) { try noLinks.build { _ in built = true } }
            #expect(error.description.hasPrefix("cannot create the database \(path): the file system cannot link files"))
            #expect(!built)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
        }
    }

    /// Any other failure to link is an error, not a reason to fall back.
    @Test func anotherLinkFailureIsAnErrorAndLeavesNothing() throws {
        let path = directory.path("favorites.sqlite3")
        let failing = NewDatabaseFile(creating: path, linkFile: { _, _ in errno = EACCES; return -1 })
        var fellBack = false
        let error = try #require(throws: FavoritesImportError.self) {
            try failing.build({ _ in }, withoutHardLinks: { fellBack = true })
        }
        #expect(error == .cannotCreate(path: path, reason: String(cString: strerror(EACCES))))
        #expect(!fellBack)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }
}
