import ArchiveStorage
import Foundation
import TestSupport
import Testing

/// What `ArchiveDatabase.checkDatabasePath` lets SQLite open: file names with room
/// for the files SQLite makes beside them (255 bytes a name on this file system).
@Suite(.timeLimit(.minutes(5)))
struct DatabasePathTests {
    /// A new database needs `NAME-journal` while it is created: 247 bytes is the
    /// longest name; 248 is refused before anything exists, and so is an empty file
    /// (SQLite takes one for a new database).
    @Test func aNewDatabaseNeedsRoomForItsJournal() throws {
        let directory = try TemporaryDirectory()
        let refused = directory.path(String(repeating: "n", count: 248))
        let error = try #require(throws: ArchiveStorageError.self) { try ArchiveDatabase(path: refused) }
        #expect(error == .nameTooLong(path: refused, bytes: 248, needed: "-journal", limit: 255))
        #expect(error.description.contains("pass --database with a shorter name"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)

        #expect(TestFile.create(atPath: refused, contents: nil))
        #expect(throws: ArchiveStorageError.nameTooLong(path: refused, bytes: 248, needed: "-journal", limit: 255)) {
            try ArchiveDatabase(path: refused)
        }

        let fits = directory.path(String(repeating: "n", count: 247))
        try ArchiveDatabase(path: fits).favorites.create(Fixtures.object(1))
        #expect(try ArchiveDatabase(path: fits).favorites.count() == 1)
    }

    /// A database file with a second hard link is refused by either name, before SQLite
    /// opens it: SQLite keeps a write-ahead log per name, so a change written through one
    /// name while another connection held frames on the other was lost to it (seen red: the
    /// write through `other.sqlite3` said stored, and `fav.sqlite3` did not have it).
    @Test func aDatabaseWithASecondHardLinkIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fav.sqlite3"), other = directory.path("other.sqlite3")
        try ArchiveDatabase(path: path).favorites.create(Fixtures.object(1))
        #expect(link(path, other) == 0)
        for name in [path, other] {
            let error = try #require(throws: ArchiveStorageError.self) { try ArchiveDatabase(path: name) }
            #expect(error == .hardLinked(path: name, links: 2))
            #expect(error.description.contains("remove the other links"), "\(error)")
        }
        #expect(unlink(other) == 0)
        #expect(try ArchiveDatabase(path: path).favorites.count() == 1)
    }

    /// A database that already exists (in WAL, as the engine leaves every one) needs
    /// only `NAME-wal` and `NAME-shm`: renamed to a 251-byte name it still opens and
    /// takes writes; 252 bytes is refused.
    @Test func anExistingDatabaseNeedsRoomForItsLog() throws {
        let directory = try TemporaryDirectory()
        let short = directory.path("a.sqlite3")
        try ArchiveDatabase(path: short).favorites.create(Fixtures.object(1))
        let long = directory.path(String(repeating: "w", count: 251))
        #expect(rename(short, long) == 0)
        do {
            let database = try ArchiveDatabase(path: long)
            try database.favorites.create(Fixtures.object(2))
            #expect(try database.favorites.count() == 2)
        }  // closed: its log is checkpointed and removed before the next rename

        let tooLong = directory.path(String(repeating: "w", count: 252))
        #expect(rename(long, tooLong) == 0)
        #expect(throws: ArchiveStorageError.nameTooLong(path: tooLong, bytes: 252, needed: "-wal", limit: 255)) {
            try ArchiveDatabase(path: tooLong)
        }
    }
}
