import Foundation
import MigrationChecksum
import SQLite
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct MigrationTests {
    /// A migration with its checksum, as the shipped ones carry it from the build.
    static func migration(_ version: Int, _ name: String, _ sql: String) -> Migration {
        Migration(version: version, name: name, sql: sql, checksum: MigrationChecksum.sha256(of: sql))
    }

    static let createThings = migration(1, "create_things", "CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL);")
    static let addColor = migration(2, "add_color", "ALTER TABLE things ADD COLUMN color TEXT;")
    static let broken = migration(
        3, "broken",
        "CREATE TABLE half_done (id INTEGER); INSERT INTO things (id, name) VALUES (99, 'x'); THIS IS NOT SQL;")

    static func migrator(_ migrations: Migration...) throws -> Migrator {
        try Migrator(migrations: migrations)
    }

    @Test func fileNamesParseIntoVersionAndName() throws {
        let migration = try Migration(fileName: "0001_create_archive_objects.sql", sql: "SELECT 1;", checksum: "c")
        #expect(migration.version == 1)
        #expect(migration.name == "create_archive_objects")
        #expect(migration.fileName == "0001_create_archive_objects.sql")
        #expect(migration.checksum == "c")
        for bad in ["1_x.sql", "0001-x.sql", "0001_X.sql", "0001_.sql", "abcd_x.sql", "0001_x.txt", "0000_x.sql", "0001_x y.sql"] {
            #expect(throws: MigrationError.invalidFileName(bad)) { try Migration(fileName: bad, sql: "", checksum: "") }
        }
    }

    @Test func duplicateVersionsAreRefused() {
        let twin = Self.migration(1, "twin", "SELECT 1;")
        #expect(throws: MigrationError.self) { try Migrator(migrations: [Self.createThings, twin]) }
    }

    @Test func anEmptyDatabaseIsMigratedAndRecordsEveryMigration() throws {
        let queue = try DatabaseQueue.inMemory(migrator: Self.migrator(Self.createThings, Self.addColor))
        let applied = try queue.read { try Self.migrator(Self.createThings, Self.addColor).appliedMigrations(in: $0) }
        #expect(applied.map(\.version) == [1, 2])
        #expect(applied.map(\.name) == ["create_things", "add_color"])
        #expect(applied.map(\.checksum) == [Self.createThings.checksum, Self.addColor.checksum])
        #expect(applied.allSatisfy { $0.appliedAt.hasSuffix("Z") })
        try queue.write { try $0.execute("INSERT INTO things (id, name, color) VALUES (1, 'a', 'red')") }
    }

    @Test func reopeningIsANoOpAndPendingMigrationsRunLater() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("m.sqlite3")
        #expect(try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings)).migratedVersions == [1])
        let firstRecord = try DatabaseQueue(path: path).read { try Self.migrator(Self.createThings).appliedMigrations(in: $0) }

        let snapshot = FileSnapshot(path: path)
        #expect(try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings)).migratedVersions == [])
        #expect(snapshot.isUnchanged)

        let upgraded = try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings, Self.addColor))
        #expect(upgraded.migratedVersions == [2])
        let applied = try upgraded.read { try Self.migrator(Self.createThings, Self.addColor).appliedMigrations(in: $0) }
        #expect(applied.map(\.version) == [1, 2])
        #expect(applied.first == firstRecord.first)
        #expect(try upgraded.read { try Self.migrator(Self.createThings, Self.addColor).pendingMigrations(in: $0) }.isEmpty)
    }

    @Test func aDatabaseFromANewerProgramIsRefusedUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("newer.sqlite3")
        _ = try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings, Self.addColor))
        let snapshot = FileSnapshot(path: path)
        let error = try #require(throws: MigrationError.self) {
            _ = try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings))
        }
        #expect(error == .unknownAppliedMigration(path: path, applied: 2, appliedName: "add_color", latestKnown: 1))
        #expect(error.description.contains("migration 2"))
        #expect(error.description.contains("up to 1"))
        #expect(snapshot.isUnchanged)
    }

    @Test func anEditedAppliedMigrationIsRefusedUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("edited.sqlite3")
        _ = try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings))
        let snapshot = FileSnapshot(path: path)
        let edited = Self.migration(1, "create_things", Self.createThings.sql + " -- edited")
        let error = try #require(throws: MigrationError.self) {
            _ = try DatabaseQueue(path: path, migrator: Self.migrator(edited))
        }
        guard case .checksumMismatch(_, let version, _, let recorded, let shipped) = error else {
            Issue.record("expected a checksum mismatch, got \(error)")
            return
        }
        #expect(version == 1)
        #expect(recorded == Self.createThings.checksum)
        #expect(shipped == edited.checksum)
        #expect(snapshot.isUnchanged)
    }

    @Test func anotherApplicationsDatabaseIsRefusedUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other.sqlite3")
        do {
            var configuration = Configuration()
            configuration.walMode = false
            let other = try DatabaseQueue(path: path, configuration: configuration)
            try other.write { try $0.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO invoices VALUES (1);") }
        }
        let snapshot = FileSnapshot(path: path)
        let error = try #require(throws: MigrationError.self) {
            _ = try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings))
        }
        #expect(error == .foreignDatabase(path: path, tables: ["invoices"]))
        #expect(snapshot.isUnchanged)
    }

    @Test func aFailingMigrationLeavesTheDatabaseExactlyAsItWas() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("failing.sqlite3")
        _ = try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings, Self.addColor))
        let snapshot = FileSnapshot(path: path)
        let error = try #require(throws: MigrationError.self) {
            _ = try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings, Self.addColor, Self.broken))
        }
        guard case .migrationFailed(_, let version, let name, let underlying) = error else {
            Issue.record("expected migrationFailed, got \(error)")
            return
        }
        #expect(version == 3)
        #expect(name == "broken")
        #expect(underlying.resultCode == .error)
        #expect(snapshot.isUnchanged)

        let queue = try DatabaseQueue(path: path, migrator: Self.migrator(Self.createThings, Self.addColor))
        try queue.read { (db: Database) throws in
            #expect(try !db.tableExists("half_done"))
            #expect(try db.fetchOne("SELECT count(*) FROM things") { try $0.column(Int.self, at: 0) } == 0)
        }
    }

    @Test func aFailingFirstMigrationLeavesANewFileEmptyOfSchema() throws {
        let queue = try DatabaseQueue.inMemory()
        let migrator = try Self.migrator(Self.broken)
        #expect(throws: MigrationError.self) { try queue.read { try migrator.migrate($0) } }
        try queue.read { (db: Database) throws in
            #expect(try !db.tableExists("half_done"))
            #expect(try !db.tableExists(Migrator.tableName))
        }
    }
}
