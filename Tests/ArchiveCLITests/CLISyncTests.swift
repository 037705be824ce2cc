import Foundation
import SQLite
import TestSupport
import Testing

/// `archive sync PATH` on the real binary: two files end with the same favorites, a
/// second sync moves nothing, the same file by another name, a copy of the file and a
/// newer schema are refused unchanged, and a sync killed at any point leaves each side
/// whole and is completed by running it again.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLISyncTests {
    let cli: CLI
    let other: String

    init() throws {
        cli = try CLI()
        other = cli.directory.path("other.sqlite3")
    }

    func ids(_ database: String) throws -> [Int] {
        let result = try cli.run(["--database", database, "favorites", "--json", "--limit", "1000"], useDatabase: false)
        let rows = (try result.json() as? [String: Any])?["favorites"] as? [[String: Any]] ?? []
        return rows.compactMap { $0["id"] as? Int }.sorted()
    }

    /// How many favorites the file holds, read with SQLite itself.
    func storedCount(_ database: String) throws -> Int {
        try Database(path: database).fetchOne("SELECT count(*) FROM archive_objects") { try $0.int(at: 0) } ?? -1
    }

    func sync(_ arguments: [String] = []) throws -> CLI.Result {
        try cli.run(["sync", other] + arguments)
    }

    @Test func twoFilesEndWithTheSameFavoritesAndASecondSyncMovesNothing() throws {
        for id in [17, 21] { #expect(try cli.run(["add", String(id)]).status == 0) }
        #expect(try cli.run(["--database", other, "add", "33"], useDatabase: false).status == 0)
        let first = try sync()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("received 1 change(s) (0 superseded), sent 2 (0 superseded)"), "\(first.stdout)")
        #expect(try ids(cli.database) == [17, 21, 33])
        #expect(try ids(other) == [17, 21, 33])

        let second = try sync(["--json"])
        let json = try #require(try second.json() as? [String: Any])
        for side in ["received", "sent"] {
            let counts = try #require(json[side] as? [String: Int])
            #expect(counts.values.allSatisfy { $0 == 0 }, "\(side): \(counts)")
        }
        // A removal on the other side, then a heart again here: the latest wins on both.
        #expect(try cli.run(["--database", other, "remove", "21"], useDatabase: false).status == 0)
        #expect(try sync().status == 0)
        #expect(try ids(cli.database) == [17, 33])
        #expect(try cli.run(["add", "21"]).status == 0)
        #expect(try sync().status == 0)
        #expect(try ids(other) == [17, 21, 33])
        for database in [cli.database, other] {
            #expect(try cli.run(["--database", database, "check"], useDatabase: false).status == 0)
        }
    }

    @Test func theSameFileByAnotherNameIsRefused() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        let link = cli.directory.path("link.sqlite3")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: cli.database)
        // Its write-ahead log and shared memory are refused before anything is opened.
        for name in [cli.database, link, cli.directory.url.path + "//./favorites.sqlite3", cli.database + "-wal", cli.database + "-shm"] {
            let result = try cli.run(["sync", name])
            #expect(result.status == 1, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("by another name: nothing to sync"), "\(name): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: name + "-wal"), "\(name): a database was opened at it")
        }
        // A hard link makes two names of one file: neither is opened (CLIDatabaseFilesTests).
        let hard = cli.directory.path("hard.sqlite3")
        try FileManager.default.linkItem(atPath: cli.database, toPath: hard)
        let result = try cli.run(["sync", hard])
        #expect(result.status == 1 && result.stderr.contains("has 2 hard links"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: hard + "-wal"), "a database was opened at it")
    }

    @Test func aByteCopyIsRefusedUnchanged() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        try FileManager.default.copyItem(atPath: cli.database, toPath: other)
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        let result = try sync()
        #expect(result.status == 1)
        #expect(result.stderr.contains("has the same device ID as"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before)
    }

    @Test func aDatabaseFromANewerVersionIsRefusedUnchanged() throws {
        #expect(try cli.run(["--database", other, "add", "17"], useDatabase: false).status == 0)
        do {
            let database = try Database(path: other)
            try database.execute("INSERT INTO schema_migrations VALUES (99, 'from_the_future', 'x', '2030-01-01T00:00:00Z')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        let result = try sync()
        #expect(result.status == 1)
        #expect(result.stderr.contains("newer version"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before)
        #expect(try ids(cli.database).isEmpty)
    }

    @Test func aDirectoryOrAFIFOIsNotADatabase() throws {
        for (path, kind) in [(cli.directory.path(""), "a directory"), (cli.directory.url.path, "a directory")] {
            let result = try cli.run(["sync", path])
            #expect(result.status == 1)
            #expect(result.stderr.contains(kind), "\(path): \(result.stderr)")
        }
    }

    /// Killed at whatever point the kill lands, each side holds all of the other's changes
    /// or none; the next sync completes it.
    @Test func aSyncKilledAtAnyPointLeavesEachSideWholeAndRunningItAgainCompletesIt() throws {
        let count = 20_000
        let rows: [[String: Any]] = (1...(count + 1)).map { id in
            ["id": id, "photoUrl": "https://p/\(id).jpg", "category": "和食", "dishName": "料理 \(id)", "shopName": "店",
             "introduction": "紹介 \(id)", "storedAt": "2026-01-01T00:00:00.000Z"]
        }
        let file = cli.directory.path("rows.json")
        try JSONSerialization.data(withJSONObject: Array(rows.dropLast())).write(to: URL(fileURLWithPath: file))
        #expect(try cli.run(["import", file]).status == 0)
        let one = cli.directory.path("one.json")
        try JSONSerialization.data(withJSONObject: [rows[count]]).write(to: URL(fileURLWithPath: one))
        #expect(try cli.run(["--database", other, "import", one], useDatabase: false).status == 0)
        // One kill is made to land inside the transaction that writes the other side: the sync
        // is stopped (SIGSTOP) once the other file's write-ahead log holds some of its pages,
        // a reader of the other side is seen not to have them (uncommitted), and only then is
        // it killed. Should the sync commit first on a fast machine, the other side is put
        // back and a smaller log is waited for.
        let pristine = try Data(contentsOf: URL(fileURLWithPath: other))
        var landedInside = false
        for threshold in [1 << 20, 256 << 10, 32 << 10, 4 << 10] where !landedInside {
            for suffix in ["-wal", "-shm"] { unlink(other + suffix) }
            try pristine.write(to: URL(fileURLWithPath: other))
            let child = try ChildProcess(CLI.executable.path, ["sync", other, "--database", cli.database], environment: cli.environment())
            let logged = Deadline.poll(within: .seconds(120)) {
                var info = stat()
                return child.hasExited || (stat(other + "-wal", &info) == 0 && info.st_size >= threshold)
            }
            child.signal(SIGSTOP)
            if logged, try storedCount(other) == 1, try storedCount(cli.database) == count + 1 { landedInside = true }
            child.signal(SIGKILL)
            child.signal(SIGCONT)
            child.wait()
            #expect([1, count + 1].contains(try storedCount(other)))
        }
        #expect(landedInside, "no kill landed inside the transaction that writes the other side")
        var sawNeither = false, sawBoth = false
        // Where in the sync each kill lands, spread over its run by how far it has written, not
        // by a clock: at once, then once either side's log has grown so far (the invariant below
        // must hold wherever it lands; with each side committed page by page it failed).
        let points: [(log: String, bytes: Int)?] = [nil] + [cli.database, other].flatMap { database in
            [4 << 10, 64 << 10, 512 << 10].map { (log: database + "-wal", bytes: $0) }
        }
        for point in points {
            let child = try ChildProcess(CLI.executable.path, ["sync", other, "--database", cli.database], environment: cli.environment())
            if let point {
                _ = Deadline.poll(within: .seconds(120)) {
                    var info = stat()
                    return child.hasExited || (stat(point.log, &info) == 0 && info.st_size >= point.bytes)
                }
            }
            child.signal(SIGKILL)
            child.wait()
            let killed = point.map { "killed once \($0.log) reached \($0.bytes) bytes" } ?? "killed at once"
            let here = try storedCount(cli.database), there = try storedCount(other)
            #expect([count, count + 1].contains(here), "\(killed): this side holds \(here)")
            #expect([1, count + 1].contains(there), "\(killed): the other holds \(there)")
            if there == 1 { sawNeither = true } else { sawBoth = true }
        }
        let final = try sync()
        #expect(final.status == 0, "\(final.stderr)")
        #expect(try storedCount(cli.database) == count + 1)
        #expect(try storedCount(other) == count + 1)
        for database in [cli.database, other] {
            #expect(try cli.run(["--database", database, "check"], useDatabase: false).status == 0)
        }
        _ = (sawNeither, sawBoth)  // where the kills landed depends on the machine; the invariant does not
    }
}
