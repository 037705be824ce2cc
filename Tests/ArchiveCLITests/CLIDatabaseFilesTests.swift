import Foundation
import SQLite
import TestSupport
import Testing

/// An output (`export --output`, `--log-actions`) is refused when it is one of the files
/// SQLite really uses for the database, by whatever name either is reached: SQLite names
/// the `-wal`, `-shm` and `-journal` after a symbolic link's target, so with `--database`
/// a link, `export -o real/fav.sqlite3-wal` renamed JSON over the live write-ahead log and
/// two acknowledged favorites were gone at the next open (issue 44, case 1).
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct CLIDatabaseFilesTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    /// The favorites stored in the database at `path`, read by the real binary.
    func storedIDs(_ path: String) throws -> [Int]? {
        let result = try cli.run(["favorites", "--json", "--database", path])
        return ((try? result.json() as? [String: Any])?["favorites"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }.sorted()
    }

    @Test func noOutputReplacesAFileOfALinkedDatabaseWhileAnotherProcessHoldsIt() throws {
        let root = cli.directory.url.path
        let real = root + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: root + "/fav.sqlite3", withDestinationPath: "real/fav.sqlite3")
        try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: "real")
        let link = root + "/fav.sqlite3"
        #expect(try cli.run(["add", "17", "--database", link]).status == 0)
        // Another process's connection keeps the write-ahead log in place, as a running
        // archive-tui does (the last connection to close would checkpoint and remove it).
        let holder = try Database(path: real + "/fav.sqlite3")
        try holder.execute("SELECT count(*) FROM archive_objects")
        #expect(try cli.run(["add", "18", "--database", link]).status == 0)
        #expect(try cli.run(["add", "19", "--database", link]).status == 0)
        #expect(FileManager.default.fileExists(atPath: real + "/fav.sqlite3-wal"))

        let outputs = [
            "real/fav.sqlite3-wal", "real/fav.sqlite3-shm", "real/fav.sqlite3-journal", "real/fav.sqlite3",
            "alias/fav.sqlite3-wal", "real/../real/fav.sqlite3-wal", "real/FAV.sqlite3-WAL",
            "fav.sqlite3-wal-link",
        ]
        try FileManager.default.createSymbolicLink(atPath: root + "/fav.sqlite3-wal-link", withDestinationPath: "real/fav.sqlite3-wal")
        for output in outputs {
            let path = root + "/" + output
            let export = try cli.run(["export", "--output", path, "--database", link])
            #expect(export.status == 1, "export --output \(output): \(export.stderr)")
            #expect(export.stderr.contains("refusing to export to"), "\(output): \(export.stderr)")
            let logged = try cli.run(["search", "チーズ", "--log-actions", path, "--database", link])
            #expect(logged.status != 0, "--log-actions \(output): \(logged.stderr)")
            #expect(logged.stderr.contains("is the database"), "\(output): \(logged.stderr)")
        }
        // The same outputs through the database's real name.
        let direct = try cli.run(["export", "--output", root + "/alias/fav.sqlite3-wal", "--database", real + "/fav.sqlite3"])
        #expect(direct.status == 1, "\(direct.stderr)")

        // Every acknowledged favorite is still there, with the holder still open and after it closed.
        #expect(try storedIDs(link) == [17, 18, 19])
        _ = holder
        #expect(try storedIDs(link) == [17, 18, 19])
        #expect(try cli.run(["check", "--database", link]).status == 0)
        // A file beside them that is not one of them is written.
        let fine = try cli.run(["export", "--output", real + "/fav.sqlite3-wal.json", "--database", link])
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    /// `ln fav.sqlite3 other.sqlite3`: SQLite keeps a write-ahead log per name, so while
    /// another connection held frames on `fav.sqlite3`, `add 21` through `other.sqlite3`
    /// said stored and `fav.sqlite3` did not have it. Every command refuses a database file
    /// with more than one link, by either name, saying why and what to do (seen red: 21 lost).
    @Test func aDatabaseWithASecondHardLinkIsRefusedByEveryCommand() throws {
        let root = cli.directory.url.path
        let path = root + "/fav.sqlite3", other = root + "/other.sqlite3"
        #expect(try cli.run(["add", "17", "--database", path]).status == 0)
        let holder = try Database(path: path)
        try holder.execute("SELECT count(*) FROM archive_objects")
        #expect(try cli.run(["add", "18", "--database", path]).status == 0)
        try FileManager.default.linkItem(atPath: path, toPath: other)
        for name in [other, path] {
            for command in [["add", "21"], ["remove", "17"], ["favorites"], ["export", "--output", root + "/out.json"], ["sync", root + "/peer.sqlite3"], ["check"]] {
                let result = try cli.run(command + ["--database", name])
                #expect(result.status == 1, "\(command) on \(name): \(result.stdout)")
                #expect(result.stderr.contains("has 2 hard links") && result.stderr.contains("nothing was opened"), "\(command): \(result.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/out.json") && !FileManager.default.fileExists(atPath: root + "/peer.sqlite3"))
        // A peer file with a second link is refused as well.
        #expect(try cli.run(["sync", other, "--database", root + "/third.sqlite3"]).stderr.contains("has 2 hard links"))
        try FileManager.default.removeItem(atPath: other)
        _ = holder
        #expect(try storedIDs(path) == [17, 18])
    }
}
