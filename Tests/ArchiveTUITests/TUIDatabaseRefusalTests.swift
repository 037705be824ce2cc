import ArchiveStorage
import Foundation
import TestSupport
import Testing
import ArchiveSyncModel

/// `archive-tui` refuses what `archive` refuses before it takes the terminal: a database
/// file with a second hard link (SQLite keeps a write-ahead log per name, so a heart
/// through one name could be lost to the other), saying so on stderr, exit 1.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct TUIDatabaseRefusalTests {
    @Test func aDatabaseWithASecondHardLinkIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fav.sqlite3"), other = directory.path("other.sqlite3")
        try ArchiveDatabase(path: path).favorites.create(StoredArchiveObject(
            id: 17, photoUrl: "https://p/17.jpg", category: "洋食", dishName: "料理", shopName: "店", introduction: "紹介",
            storedAt: Date(millisecondsSince1970: 1_700_000_000_000)))
        #expect(link(path, other) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.url.path
        environment["ARCHIVE_API_URL"] = nil
        environment["TERM"] = "xterm-256color"
        for name in [other, path] {
            let result = try ChildProcess.run(
                BuiltProduct.url(named: "archive-tui").path, ["--database", name], environment: environment, timeout: .seconds(60))
            #expect(result.status == 1, "\(name): \(result.stdout)")
            #expect(result.stderr.contains("has 2 hard links") && result.stderr.contains("nothing was opened"), "\(result.stderr)")
        }
        #expect(unlink(other) == 0)
        #expect(try ArchiveDatabase(path: path).favorites.count() == 1)
    }
}
