@testable import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// Databases written by released builds, kept as fixtures (one per released
/// schema version, from now on): this build must open each, validate the
/// checksums they recorded, keep every row and reach the latest version.
@Suite(.timeLimit(.minutes(5)))
struct ReleasedSchemaTests {
    /// `Fixtures/schema-vN.sqlite3`, copied into a temporary directory (opening migrates it).
    static func copyOfFixture(_ name: String, into directory: TemporaryDirectory) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        let path = directory.path(name)
        try FileManager.default.copyItem(atPath: source.path, toPath: path)
        return path
    }

    /// Schema version 2, written by the first release (hand-written SHA-256 checksums):
    /// favorites 17, 33 and 5 (one before 1970, one with quotes and a newline) and the
    /// onboarding flag dismissed.
    @Test func theFirstReleaseDatabaseKeepsEveryRowAndItsChecksumsValidate() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.copyOfFixture("schema-v2.sqlite3", into: directory)

        let status = try ArchiveDatabase.migrationStatus(path: path)
        let shipped = try ArchiveMigrations.migrator().migrations
        // The recorded checksums are exactly what this build computes for the shipped files.
        #expect(status.applied.map(\.checksum) == shipped.prefix(2).map(\.checksum))
        #expect(status.applied.map(\.checksum) == [
            "fb16d25c8fddcdaab55426d1bd71ed15e81490bd26274a2b25f363dffec4a9cb",
            "5862fc6deb1b1ac4591522a31b7bbfe4be4856736fdd633509a3d8a16d4045c4",
        ])

        let database = try ArchiveDatabase(path: path)
        let after = try ArchiveDatabase.migrationStatus(path: path)
        #expect(after.pending.isEmpty)
        #expect(after.applied.map(\.version) == shipped.map(\.version))

        let favorites = try database.favorites.allObjects()
        #expect(favorites.map(\.id) == [17, 33, 5])
        #expect(favorites[1].shopName == "キッチン\"星\"")
        #expect(favorites[1].introduction == "line\nbreak \\ backslash")
        #expect(favorites[1].storedAt.millisecondsSince1970 == 1_795_080_600_250)
        #expect(favorites[2].introduction == "Soba 🍜 with émoji")
        #expect(favorites[2].storedAt.millisecondsSince1970 == -1)
        #expect(try !database.onboarding.shouldShowOnboarding())
        #expect(try database.integrityReport().isOK)

        // Migration 0004 put the favorites already stored in its index (waiting for a
        // run, being fewer than 64): searchable at once.
        func search(_ keyword: String) throws -> [Int] {
            try database.favorites.search(FavoritesQuery(keyword: keyword), after: nil, limit: 10).page.map(\.id)
        }
        #expect(try search("星") == [33])
        #expect(try search("ÉMOJI") == [5])
        #expect(try search("soba 🍜") == [5])
        #expect(try search("\"星\"") == [33])
        #expect(try search("nothing like it") == [])
    }
}
