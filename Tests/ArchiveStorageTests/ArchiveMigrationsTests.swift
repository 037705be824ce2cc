import ArchiveStorage
import Foundation
import MigrationChecksum
import SQLite
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ArchiveMigrationsTests {
    /// The repository's Migrations/ folder, next to Tests/.
    static let migrationsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Migrations")

    @Test func theEmbeddedMigrationsAreExactlyTheFilesOfMigrationsFolder() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.migrationsDirectory.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        let embedded = try ArchiveMigrations.all()
        #expect(embedded.map(\.fileName) == files)
        for migration in embedded {
            let text = try String(contentsOf: Self.migrationsDirectory.appendingPathComponent(migration.fileName), encoding: .utf8)
            #expect(migration.sql == text, "\(migration.fileName) differs from its embedded copy")
            // The checksum embedded at build time is SHA-256 of the file, as databases record it.
            #expect(migration.checksum == MigrationChecksum.sha256(of: text), "\(migration.fileName)'s embedded checksum")
        }
        #expect(embedded.map(\.version) == Array(1...embedded.count))
    }

    @Test func aNewDatabaseHasEveryTableAndEveryMigrationRecorded() throws {
        let database = try ArchiveDatabase.inMemory()
        try database.queue.read { (db: Database) throws in
            #expect(try db.tableExists("archive_objects"))
            #expect(try db.tableExists("key_value_store"))
            let applied = try ArchiveMigrations.migrator().appliedMigrations(in: db)
            #expect(applied.map(\.version) == (try ArchiveMigrations.all()).map(\.version))
        }
    }
}
