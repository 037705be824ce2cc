import ArchiveStorage
import Foundation
import TestSupport
import Testing
import ArchiveSyncModel

/// Kill -9 at random moments: every acknowledged write survives, nothing half-written remains.
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct CrashTests {
    static let kills = 50

    @Test func acknowledgedWritesSurviveFiftySIGKILLsAtRandomMoments() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crash.sqlite3")
        var generator = SeededGenerator(seed: 0xC0FFEE)
        var acknowledged: [Int] = []
        for round in 0..<Self.kills {
            await Task.yield()  // rounds block on pipes: let other tests' tasks run between them
            let next = try ArchiveDatabase(path: path).favorites.count() + 1
            let child = try helper(["ack-writes", path, String(next)])
            let target = Int.random(in: 1...40, using: &generator)
            var seen = 0
            while seen < target, let line = child.nextLine() {
                guard line.hasPrefix("ack "), let id = Int(line.dropFirst(4)) else { continue }
                acknowledged.append(id)
                seen += 1
            }
            #expect(seen == target, "round \(round): the writer stopped early: \(child.wait().stderr)")
            child.kill()

            let database = try ArchiveDatabase(path: path)
            let report = try database.integrityReport()
            #expect(report.isOK, "round \(round): \(report.problems)")
            let stored = try database.favorites.storedIDs(among: acknowledged)
            #expect(stored.count == acknowledged.count, "round \(round): \(acknowledged.count - stored.count) acknowledged writes lost")
            // Writes are sequential: what survived is exactly 1...count, acknowledged or not.
            let count = try database.favorites.count()
            #expect(try database.favorites.storedIDs(among: Array(1...max(1, count))).count == count)
        }
        #expect(acknowledged.count >= Self.kills)
    }

    @Test func anImportKilledMidwayLeavesNothingOfItself() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("import-crash.sqlite3")
        let file = directory.path("big.json")
        try writeImportFile(file, firstID: 10_000_001, count: 60_000)
        do {
            let database = try ArchiveDatabase(path: path)
            try database.favorites.create(contentsOf: (1...100).map { id in
                StoredArchiveObject(id: id, photoUrl: "u", category: "c", dishName: "d\(id)", shopName: "s", introduction: "i")
            })
        }
        var generator = SeededGenerator(seed: 42)
        for round in 0..<5 {
            await Task.yield()
            let child = try helper(["import", path, file])
            let target = Int.random(in: 1...5, using: &generator)
            var seen = 0
            while seen < target, let line = child.nextLine() {
                if line.hasPrefix("progress ") { seen += 1 }
            }
            #expect(seen == target, "round \(round): \(child.wait().stderr)")
            child.kill()
            let database = try ArchiveDatabase(path: path)
            #expect(try database.integrityReport().isOK)
            #expect(try database.favorites.count() == 100, "round \(round): the killed import left rows")
            #expect(try database.favorites.storedIDs(among: Array(10_000_001...10_000_100)).isEmpty)
        }
    }
}
