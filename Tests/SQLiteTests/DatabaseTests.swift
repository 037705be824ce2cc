import Foundation
import SQLite
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct DatabaseTests {
    struct Boom: Error {}

    @Test func statementsAreCachedPerSQLText() throws {
        let database = try Database(path: ":memory:")
        let first = try database.cachedStatement("SELECT 1")
        let second = try database.cachedStatement("SELECT 1")
        let other = try database.cachedStatement("SELECT 2")
        #expect(first === second)
        #expect(first !== other)
    }

    @Test func errorsCarryCodesMessageAndSQL() throws {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        try database.execute("INSERT INTO t (id) VALUES (?)", 1)
        let error = try #require(throws: SQLiteError.self) {
            try database.execute("INSERT INTO t (id) VALUES (?)", 1)
        }
        #expect(error.resultCode == .constraint)
        #expect(error.extendedResultCode.rawValue == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(ResultCode.constraint ~= error.extendedResultCode)
        #expect(!(ResultCode.busy ~= error.extendedResultCode))
        #expect(error.message.contains("UNIQUE constraint failed: t.id"))
        #expect(error.sql == "INSERT INTO t (id) VALUES (?)")
        #expect(error.description.contains("INSERT INTO t"))

        let syntax = try #require(throws: SQLiteError.self) { try database.execute("SELEC 1") }
        #expect(syntax.resultCode == .error)
        #expect(syntax.sql == "SELEC 1")
    }

    @Test func aThrowingTransactionRollsBackWholeAndRethrows() throws {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE t (v INTEGER)")
        #expect(throws: Boom.self) {
            try database.transaction {
                try database.execute("INSERT INTO t (v) VALUES (1)")
                try database.execute("INSERT INTO t (v) VALUES (2)")
                throw Boom()
            }
        }
        #expect(!database.isInTransaction)
        #expect(try database.fetchOne("SELECT count(*) FROM t") { try $0.column(Int.self, at: 0) } == 0)

        try database.transaction { try database.execute("INSERT INTO t (v) VALUES (3)") }
        #expect(try database.fetchAll("SELECT v FROM t") { try $0.column(Int.self, at: 0) } == [3])
    }

    /// `BEGIN` and `COMMIT` run as statements prepared once per connection: a COMMIT
    /// that fails (a deferred foreign key still broken) rolls everything back, and the
    /// same statements then begin and commit the next transaction.
    @Test func aFailedCommitRollsBackAndTheNextTransactionCommits() throws {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
        try database.execute(
            "CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)")
        for _ in 0..<3 {
            let error = try #require(throws: SQLiteError.self) {
                try database.transaction {
                    try database.execute("INSERT INTO parent (id) VALUES (1)")
                    try database.execute("INSERT INTO child (id, parent) VALUES (1, 99)")  // checked at COMMIT
                }
            }
            #expect(error.resultCode == .constraint)
            #expect(error.sql == "COMMIT TRANSACTION")
            #expect(!database.isInTransaction)
            #expect(try database.fetchOne("SELECT count(*) FROM parent") { try $0.column(Int.self, at: 0) } == 0)
        }
        for kind in [TransactionKind.deferred, .immediate, .exclusive] {
            try database.transaction(kind) { try database.execute("INSERT INTO parent (id) VALUES (NULL)") }
            #expect(!database.isInTransaction)
        }
        #expect(try database.fetchOne("SELECT count(*) FROM parent") { try $0.column(Int.self, at: 0) } == 3)
    }

    @Test func aNestedTransactionRollsBackOnlyItsOwnWork() throws {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE t (v INTEGER)")
        try database.transaction {
            try database.execute("INSERT INTO t (v) VALUES (1)")
            try? database.transaction {
                try database.execute("INSERT INTO t (v) VALUES (2)")
                throw Boom()
            }
        }
        #expect(try database.fetchAll("SELECT v FROM t") { try $0.column(Int.self, at: 0) } == [1])
    }

    @Test func aFileOpensInWALWithTheConfiguredPragmas() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("a.sqlite3"))
        try queue.read { (db: Database) throws in
            #expect(try db.fetchOne("PRAGMA journal_mode") { try $0.column(String.self, at: 0) } == "wal")
            #expect(try db.fetchOne("PRAGMA synchronous") { try $0.column(Int.self, at: 0) } == 2)  // FULL: docs/ARCHITECTURE.md, "Durability"
            #expect(try db.fetchOne("PRAGMA foreign_keys") { try $0.column(Int.self, at: 0) } == 1)
            #expect(try db.fetchOne("PRAGMA busy_timeout") { try $0.column(Int.self, at: 0) } == 5000)
        }

        var unsynced = Configuration()
        unsynced.synchronous = .normal
        unsynced.busyTimeout = .milliseconds(250)
        let scratch = try DatabaseQueue(path: directory.path("b.sqlite3"), configuration: unsynced)
        try scratch.read { (db: Database) throws in
            #expect(try db.fetchOne("PRAGMA synchronous") { try $0.column(Int.self, at: 0) } == 1)
            #expect(try db.fetchOne("PRAGMA busy_timeout") { try $0.column(Int.self, at: 0) } == 250)
        }
    }

    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("random.bin")
        var generator = SeededGenerator.random()
        let bytes = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try bytes.write(to: URL(fileURLWithPath: path))
        let snapshot = FileSnapshot(path: path)
        let error = try #require(throws: SQLiteError.self, "seed \(generator.seed)") { _ = try DatabaseQueue(path: path) }
        #expect(error.resultCode == .notADatabase, "seed \(generator.seed)")
        #expect(error.path == path)
        #expect(snapshot.isUnchanged, "seed \(generator.seed)")
    }

    @Test func anEmptyFileIsANewDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("empty.sqlite3")
        _ = TestFile.create(atPath: path, contents: Data())
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute("CREATE TABLE t (v)") }
        #expect(try queue.read { try $0.tableExists("t") })
    }

    /// `close()` closes now, whoever else still holds the queue (a thread pool's finished
    /// work item): the log is checkpointed and removed at once, and later calls say it was
    /// closed instead of reaching a closed connection.
    @Test func closeClosesNowWhileOtherReferencesLiveAndLaterCallsAreRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("a.sqlite3")
        let queue = try DatabaseQueue(path: path)
        let elsewhere = queue
        try queue.write { try $0.execute("CREATE TABLE t (v)"); try $0.execute("INSERT INTO t VALUES (1)") }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        queue.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the last connection's close removes its log")
        let error = try #require(throws: SQLiteError.self) { try elsewhere.read { try $0.tableExists("t") } }
        #expect(error.resultCode == .misuse)
        #expect(error.description.contains("closed") && error.description.contains(path))
        #expect(throws: SQLiteError.self) { try elsewhere.write { try $0.execute("INSERT INTO t VALUES (2)") } }
        elsewhere.close()  // twice: nothing
        #expect(try DatabaseQueue(path: path).read { try $0.fetchOne("SELECT count(*) FROM t") { try $0.int(at: 0) } } == 1)
    }

    @Test func aMissingDirectoryIsACannotOpenErrorNamingThePath() throws {
        let path = "/nonexistent-\(UUID().uuidString)/db.sqlite3"
        let error = try #require(throws: SQLiteError.self) { _ = try DatabaseQueue(path: path) }
        #expect(error.resultCode == .cannotOpen)
        #expect(error.description.contains(path))
    }

    @Test func twoConnectionsOnOneFileWriteConcurrentlyWithoutBusyErrors() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite3")
        let setup = try DatabaseQueue(path: path)
        try setup.write { try $0.execute("CREATE TABLE t (writer INTEGER, n INTEGER)") }
        let perWriter = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    let queue = try DatabaseQueue(path: path)
                    for n in 0..<perWriter {
                        try queue.write { db in
                            try db.execute("INSERT INTO t (writer, n) VALUES (?, ?)", writer, n)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let counts = try setup.read { (db: Database) throws in
            try db.fetchAll("SELECT writer, count(*) FROM t GROUP BY writer ORDER BY writer") {
                [try $0.column(Int.self, at: 0), try $0.column(Int.self, at: 1)]
            }
        }
        #expect(counts == [[0, perWriter], [1, perWriter]])
    }
}

/// ``Configuration/workLimit``: one step of a statement that runs past it is interrupted.
@Suite(.timeLimit(.minutes(5)))
struct WorkLimitTests {
    /// A query that never yields a row (a recursive CTE without end) is interrupted within
    /// its bound; ordinary statements on the same connection run as before. Without the
    /// bound it would run until the suite's time limit.
    @Test func aStepPastTheWorkLimitIsInterrupted() throws {
        var configuration = Configuration()
        configuration.workLimit = 5_000_000
        configuration.trustsSchema = false
        let database = try Database(path: Database.inMemoryPath, configuration: configuration)
        try database.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3)")
        let error = try #require(throws: SQLiteError.self) {
            try database.fetchOne("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r") { try $0.int(at: 0) }
        }
        #expect(error.resultCode == .interrupt, "\(error)")
        #expect(try database.fetchOne("SELECT sum(x) FROM t") { try $0.int(at: 0) } == 6)
        // Each step has its budget: many small steps pass where their sum would not.
        let rows = try database.fetchAll("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r LIMIT 200000) SELECT x FROM r") { try $0.int(at: 0) }
        #expect(rows.count == 200_000)
    }
}
