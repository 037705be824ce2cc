@testable import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// The convergence harness: 2 to 5 databases, each with a wall clock of its own (hours
/// ahead or behind, moving at its own pace), hundreds of random changes (heart, un-heart,
/// heart again, new texts, imports), random full and half syncs in random order, syncs
/// with a database whose clock is decades ahead or at the last valid stamp (refused, nothing
/// moved), then a final round. Oracle: every database holds the same favorites, and they are the merge
/// rule's answer over every change any database made (no change is lost unless a greater
/// stamp superseded it).
///
/// CI runs `SyncConvergenceTests.seeds`; `SYNC_SEEDS=N swift test --filter
/// SyncConvergenceTests` runs N more from a random start (the failing seed is printed).
/// Its cases run one at a time (`.serialized`, as `ServerConvergenceTests`'): thousands
/// started at once on two cores each waited past its own time limit (README's deep run
/// failed with 2,576 "Time limit was exceeded"), while one at a time each takes well under it.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SyncConvergenceTests {
    /// The seeds every run tries.
    static let seeds: [UInt64] = Array(1...24)

    /// The seeds of this run: the fixed ones, and `SYNC_SEEDS` more when asked.
    static var runSeeds: [UInt64] { ConvergenceSeeds.run(seeds) }

    @Test(arguments: runSeeds)
    func databasesConvergeOnTheMergeRulesAnswer(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 2...5, using: &random)
        let clocks = (0..<count).map { _ in
            ManualClock(SyncTests.start + Int64.random(in: -3...3, using: &random) * SyncTests.hour)
        }
        let databases = try clocks.map { try SyncTests.database(clock: $0) }
        var made: [FavoriteChange] = []  // every change any database made itself
        // A database whose clock is far ahead (decades) or at the last valid stamp: every
        // sync that would take one of its changes is refused whole, and nothing moves, so no
        // clock is dragged into the future and the others still converge.
        let hostileClock = ManualClock(Bool.random(using: &random)
            ? HybridTimestamp.maximumMilliseconds - Int64.random(in: 0...1_000, using: &random)
            : SyncTests.start + HybridTimestamp.maximumLead + Int64.random(in: 4...(40 * 365 * 24), using: &random) * SyncTests.hour)
        let hostile = try SyncTests.database(clock: hostileClock)
        try hostile.favorites.create(contentsOf: Set((1...5).map { _ in Int.random(in: 1...30, using: &random) }).map { SyncTests.object($0, "未来") })

        /// Runs a local operation on database `index` and logs the changes it made.
        func local(_ index: Int, _ operation: (ArchiveDatabase) throws -> Void) throws {
            let database = databases[index]
            let before = try database.favorites.latestChangeSeq()
            try operation(database)
            made += try SyncTests.feed(database, since: before)
        }

        for _ in 0..<Int.random(in: 150...300, using: &random) {
            let index = Int.random(in: 0..<count, using: &random)
            clocks[index].advance(by: Int64.random(in: 0...5_000, using: &random))
            let id = Int.random(in: 1...30, using: &random)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<35:
                let text = ["紹介", "新しい紹介", "三つ目"].randomElement(using: &random)!
                try local(index) { try $0.favorites.create(SyncTests.object(id, text)) }
            case 35..<60:
                try local(index) { _ = try $0.favorites.delete(id: id) }
            case 60..<65:
                let ids = (0..<5).map { _ in Int.random(in: 1...30, using: &random) }
                try local(index) { try $0.favorites.create(contentsOf: Set(ids).map { SyncTests.object($0, "取り込み") }) }
            case 65..<85:
                let other = (index + Int.random(in: 1..<count, using: &random)) % count
                try SyncSession.run(databases[index], with: databases[other])
            case 85..<90:
                let database = databases[index]
                let before = (try database.favorites.latestChangeSeq(), try SyncTests.favorites(database))
                do {
                    if Bool.random(using: &random) {
                        try SyncSession.run(database, with: hostile)
                    } else {
                        try SyncSession.run(hostile, with: database)
                    }
                    Issue.record("seed \(seed): a sync with a database stamped \(hostileClock.now() - clocks[index].now()) ms ahead went through")
                } catch SyncError.stampAhead(_, _, let device, let ahead) {
                    #expect(device == (try hostile.favorites.deviceID()) && ahead > HybridTimestamp.maximumLead, "seed \(seed)")
                }
                #expect(try database.favorites.latestChangeSeq() == before.0 && SyncTests.favorites(database) == before.1, "seed \(seed): a refused sync changed database \(index)")
            default:
                // A sync stopped after its first commit: only one side took the other's changes.
                let other = (index + Int.random(in: 1..<count, using: &random)) % count
                _ = try SyncSession.pull(into: databases[index], from: databases[other])
            }
        }
        // A final round: along the chain and back, every change reaches every database.
        for index in 0..<(count - 1) { try SyncSession.run(databases[index], with: databases[index + 1]) }
        for index in (0..<(count - 1)).reversed() { try SyncSession.run(databases[index], with: databases[index + 1]) }

        let (answer, removed) = MergeOracle.answer(made)
        for (index, database) in databases.enumerated() {
            let favorites = try SyncTests.favorites(database)
            #expect(favorites == answer, "seed \(seed): database \(index) of \(count) differs from the merge rule's answer")
            #expect(try database.favorites.tombstoneCount() == removed, "seed \(seed): database \(index)'s tombstones")
            #expect(try database.queue.read { try FavoritesSearchIndex.problems(in: $0) }.isEmpty, "seed \(seed): database \(index)'s index")
        }
        #expect(made.count > 50, "seed \(seed): the run made only \(made.count) changes")
    }
}
