import Foundation
import SQLite
import TestSupport
import Testing

@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct CLIBadInputTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    /// Runs `arguments` against the database as it is now and expects a one-line
    /// error, the exit status, and the file unchanged byte for byte.
    func expectRefusal(_ arguments: [String], status: Int32 = 1, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let snapshot = FileSnapshot(path: cli.database)
        let result = try cli.run(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        #expect(snapshot.isUnchanged, "the database file changed", sourceLocation: sourceLocation)
    }

    func makeDatabaseWithFavorites() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        #expect(try cli.run(["add", "33"]).status == 0)
    }

    @Test func aFileThatIsNotSQLiteIsRefusedUnchanged() throws {
        var generator = SeededGenerator.random()
        print("aFileThatIsNotSQLiteIsRefusedUnchanged: random bytes from seed \(generator.seed)")
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: cli.database))
        try expectRefusal(["search", "チーズ"], mentioning: "not a database")
        try expectRefusal(["add", "17"], mentioning: "not a database")
        try Data("hello, this is a text file\n".utf8).write(to: URL(fileURLWithPath: cli.database))
        try expectRefusal(["favorites"], mentioning: "not a database")
    }

    @Test func aCorruptDatabaseIsAClearErrorAndLeftUnchanged() throws {
        try makeDatabaseWithFavorites()
        #expect(try cli.run(["import", try writeFavorites(count: 3_000)]).status == 0)
        var bytes = try #require(FileManager.default.contents(atPath: cli.database))
        // Overwrite the middle pages (keeping the header) with garbage.
        let start = 4096 * 3
        for index in start..<min(bytes.count, start + 4096 * 20) { bytes[index] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: cli.database))
        let snapshot = FileSnapshot(path: cli.database)
        let check = try cli.run(["check"])
        #expect(check.status == 1)
        #expect(check.stderr.contains("malformed") || check.stdout.contains("problems"))
        let favorites = try cli.run(["favorites", "--limit", "10000"])
        #expect(favorites.status == 1)
        #expect(favorites.stderr.contains("malformed"))
        #expect(snapshot.isUnchanged)
    }

    @Test func aDatabaseFromANewerVersionIsRefusedUnchanged() throws {
        try makeDatabaseWithFavorites()
        do {
            let queue = try DatabaseQueue(path: cli.database)
            try queue.write { db in
                try db.execute("INSERT INTO schema_migrations VALUES (99, 'from_the_future', 'x', '2030-01-01T00:00:00Z')")
            }
        }
        try expectRefusal(["search"], mentioning: "newer version")
        try expectRefusal(["add", "1"], mentioning: "migration 99")
        try expectRefusal(["migrations"], mentioning: "up to 6")
    }

    @Test func anotherApplicationsDatabaseIsRefusedUnchanged() throws {
        do {
            let queue = try DatabaseQueue(path: cli.database)
            try queue.write { try $0.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)") }
        }
        try expectRefusal(["favorites"], mentioning: "another application")
    }

    @Test func aPlaceThatCannotBeWrittenIsAClearError() throws {
        let result = try cli.run(["add", "17"], useDatabase: false, environment: ["ARCHIVE_DATABASE": "/proc/favorite-archive/favorites.sqlite3"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/proc/favorite-archive"))
        let file = try cli.run(["add", "17", "--database", "/proc/version"], useDatabase: false)
        #expect(file.status == 1)
    }

    @Test func anUnreachableOrMisbehavingAPIIsAClearErrorAndChangesNothing() throws {
        try makeDatabaseWithFavorites()
        try expectRefusal(["add", "5", "--api-url", "http://127.0.0.1:1"], mentioning: "cannot reach")
        try expectRefusal(["search", "--api-url", "not-a-url"], mentioning: "is not an http(s) URL")
        let failing = try ServeProcess(cli: cli, arguments: ["--fail-rate", "1"])
        try expectRefusal(["categories", "--api-url", failing.url], mentioning: "HTTP 500")
        // A search answers from the favorites instead (offline-first), saying why;
        // it writes nothing but the last search's conditions.
        for (arguments, why) in [(["search", "--api-url", "http://127.0.0.1:1"], "cannot reach http://127.0.0.1:1/archive_images"),
                                 (["search", "チーズ", "--api-url", failing.url], "HTTP 500")] {
            let result = try cli.run(arguments)
            #expect(result.status == 0)
            #expect(result.stderr.contains("offline — showing your favorites: ") && result.stderr.contains(why), "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("♥") }.count == 2)
        }
        #expect((try cli.run(["favorites", "--json"]).json() as? [String: Any])?["total"] as? Int == 2)
    }

    @Test(arguments: [
        (["add", "abc"], "IDs are positive integers"),
        (["add", "-5"], "IDs are positive integers"),
        (["remove", "-5"], "IDs are positive integers"),
        (["add", "1", "2"], "give one ID"),
        (["add"], "give the dish's ID"),
        (["search", "--timeout", "0"], "--timeout '0.0' is not a timeout"),
        (["search", "--timeout", "nan"], "is not a timeout"),
        (["search", "--timeout", "1e300"], "is not a timeout"),
        (["add", "--", "-3"], "positive"),
        (["remove", "0"], "positive"),
        (["add", "99999999999999999999999"], "IDs are positive integers"),
        (["favorites", "--limit", "0"], "--limit"),
        (["favorites", "--after", "yesterday"], "not a page cursor"),
        (["onboarding", "maybe"], "maybe"),
        (["serve", "--port", "3000"], "archive serve moved to archive-server"),
        (["frobnicate"], "Usage: archive"),
    ])
    func usageErrorsExitWith64(arguments: [String], mention: String) throws {
        try makeDatabaseWithFavorites()
        try expectRefusal(arguments, status: 64, mentioning: mention)
    }

    @Test func anUnknownIDIsAFailureAndChangesNothing() throws {
        try makeDatabaseWithFavorites()
        try expectRefusal(["add", "12345"], mentioning: "no dish with ID 12345")
        try expectRefusal(["remove", "12345"], mentioning: "not a stored favorite")
    }

    func writeFavorites(count: Int) throws -> String {
        let path = cli.directory.path("generated-\(count).json")
        var text = "[\n"
        for id in 1...count {
            if id > 1 { text += ",\n" }
            text += #"{"id":\#(id + 100),"photoUrl":"https://p/\#(id).jpg","category":"和食","dishName":"料理\#(id)","shopName":"店","introduction":"紹介","storedAt":"2026-01-01T00:00:00.000Z"}"#
        }
        try (text + "\n]\n").write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }
}
