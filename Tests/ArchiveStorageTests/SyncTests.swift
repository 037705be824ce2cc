@testable import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// The sync engine: stamps, tombstones, the one merge rule, the change feed, applying
/// received changes, and two-database sync (docs/SYNC.md).
@Suite(.timeLimit(.minutes(5)))
struct SyncTests {
    static let hour: Int64 = 3_600_000
    static let start: Int64 = 1_790_000_000_000

    static func object(_ id: Int, _ introduction: String = "紹介") -> StoredArchiveObject {
        StoredArchiveObject(
            id: id, photoUrl: "https://p/\(id).jpg", category: "和食", dishName: "料理 \(id)", shopName: "店",
            introduction: introduction, storedAt: Date(millisecondsSince1970: start))
    }

    static func database(clock: ManualClock) throws -> ArchiveDatabase {
        try ArchiveDatabase(path: ArchiveDatabase.inMemoryPath, wallClock: { clock.now() })
    }

    /// The favorites a database holds, by ID.
    static func favorites(_ database: ArchiveDatabase) throws -> [Int: StoredArchiveObject] {
        Dictionary(uniqueKeysWithValues: try database.favorites.allObjects().map { ($0.id, $0) })
    }

    /// Every change in a database's feed.
    static func feed(_ database: ArchiveDatabase, since seq: Int64 = 0) throws -> [FavoriteChange] {
        var changes: [FavoriteChange] = []
        var cursor = seq
        while true {
            let page = try database.favorites.changes(since: cursor, limit: 7)
            changes += page.changes.map(\.change)
            cursor = page.lastSeq
            if !page.hasMore { return changes }
        }
    }

    // MARK: - The clock

    @Test func aNewStampFollowsEveryStampSeenWhateverTheWallClockSays() {
        let clock = HybridTimestamp(milliseconds: 1_000, counter: 5)
        #expect(HybridTimestamp.next(after: clock, wallClock: 2_000) == HybridTimestamp(milliseconds: 2_000))
        #expect(HybridTimestamp.next(after: clock, wallClock: 500) == HybridTimestamp(milliseconds: 1_000, counter: 6))
        #expect(HybridTimestamp.next(after: clock, wallClock: 1_000) == HybridTimestamp(milliseconds: 1_000, counter: 6))
        let full = HybridTimestamp(milliseconds: 1_000, counter: 0xFFFF)
        #expect(HybridTimestamp.next(after: full, wallClock: 0) == HybridTimestamp(milliseconds: 1_001))
        // A broken wall clock far ahead is held to the last valid millisecond.
        let ahead = HybridTimestamp.next(after: clock, wallClock: .max)
        #expect(ahead.isValid && ahead.milliseconds == HybridTimestamp.maximumMilliseconds)
        let last = HybridTimestamp(milliseconds: HybridTimestamp.maximumMilliseconds, counter: 0xFFFF)
        #expect(HybridTimestamp.next(after: last, wallClock: 0).isValid)
        #expect(!HybridTimestamp(milliseconds: HybridTimestamp.maximumMilliseconds + 1).isValid)
        #expect(!HybridTimestamp(rawValue: -1).isValid)
    }

    // MARK: - Local changes

    @Test func localChangesAreStampedAndARemovalLeavesATombstone() throws {
        let clock = ManualClock(Self.start)
        let database = try Self.database(clock: clock)
        let device = try database.favorites.deviceID()
        try database.favorites.create(Self.object(17))
        clock.advance(by: 10)
        try database.favorites.create(Self.object(21))
        try database.favorites.create(Self.object(21))  // the same again: a new change of 21, restamped
        clock.advance(by: 10)
        #expect(try database.favorites.delete(id: 17))
        #expect(try database.favorites.delete(id: 99) == false)  // nothing stored: no tombstone
        let feed = try Self.feed(database)
        #expect(feed.map(\.id) == [21, 17])
        #expect(feed.map(\.state) == [.stored(Self.object(21)), .removed])
        #expect(feed.allSatisfy { $0.stamp.device == device })
        #expect(feed[1].stamp.time == HybridTimestamp(milliseconds: Self.start + 20))
        // A tombstone is never a favorite: not counted, not listed, not paged.
        #expect(try database.favorites.count() == 1)
        #expect(try database.favorites.tombstoneCount() == 1)
        #expect(try database.favorites.page(after: nil, limit: 10).objects.map(\.id) == [21])
        // Stored again: the tombstone goes, the heart has a later stamp.
        clock.advance(by: 10)
        try database.favorites.create(Self.object(17))
        #expect(try database.favorites.tombstoneCount() == 0)
        #expect(try Self.feed(database).last?.stamp.time == HybridTimestamp(milliseconds: Self.start + 30))
        // A refresh (new texts) is a change too, stamped after the others.
        try database.favorites.create(Self.object(21, "新しい紹介"))
        let last = try #require(try Self.feed(database).last)
        #expect(last.id == 21 && last.stamp.time == HybridTimestamp(milliseconds: Self.start + 30, counter: 1))
    }

    // MARK: - The rule

    /// Any order, any grouping, any repetition of the same changes gives the same winner.
    @Test func theMergeRuleIsCommutativeAssociativeAndIdempotent() throws {
        var random = SeededGenerator(seed: 46)
        let devices = (0..<3).map { index in DeviceID(bytes: [UInt8](repeating: UInt8(index), count: 16))! }
        for round in 0..<200 {
            let changes = (0..<6).map { _ in
                FavoriteChange(
                    id: 1, stamp: ChangeStamp(time: HybridTimestamp(milliseconds: Int64.random(in: 0...3, using: &random)), device: devices.randomElement(using: &random)!),
                    state: Bool.random(using: &random) ? .removed : .stored(Self.object(1, ["a", "b"].randomElement(using: &random)!)))
            }
            let folded = changes.dropFirst().reduce(changes[0], FavoriteMerge.winner)
            // Judged by the oracle written apart from the rule, not by the rule itself.
            #expect(folded == changes.dropFirst().reduce(changes[0], MergeOracle.later), "round \(round) (seed 46)")
            let shuffled = changes.shuffled(using: &random)
            #expect(shuffled.dropFirst().reduce(shuffled[0], FavoriteMerge.winner) == folded, "round \(round) (seed 46)")
            let left = FavoriteMerge.winner(FavoriteMerge.winner(changes[0], changes[1]), changes[2])
            let right = FavoriteMerge.winner(changes[0], FavoriteMerge.winner(changes[1], changes[2]))
            #expect(left == right)
            #expect(FavoriteMerge.winner(folded, folded) == folded)
            #expect(changes.allSatisfy { FavoriteMerge.winner(folded, $0) == folded })
        }
    }

    /// "B saw A's heart, then removed it" ends removed, though A's clock runs an hour ahead.
    @Test func causalitySurvivesAClockAnHourAhead() throws {
        let a = try Self.database(clock: ManualClock(Self.start + Self.hour))
        let b = try Self.database(clock: ManualClock(Self.start))
        try a.favorites.create(Self.object(17))
        try SyncSession.run(a, with: b)
        #expect(try b.favorites.contains(id: 17))
        #expect(try b.favorites.delete(id: 17))
        let summary = try SyncSession.run(b, with: a)
        #expect(summary.sent.applied == 1)
        #expect(try a.favorites.contains(id: 17) == false)
        #expect(try b.favorites.contains(id: 17) == false)
    }

    /// A stamp past the year 4199 is no stamp: refused by every database alike, counted.
    @Test func stampsPastTheLastValidOneAreRefusedAlikeEverywhere() throws {
        let clock = ManualClock(Self.start)
        let stranger = try #require(DeviceID(hex: "ffffffffffffffffffffffffffffffff"))
        let tooFar = FavoriteChange(
            id: 5, stamp: ChangeStamp(time: HybridTimestamp(milliseconds: HybridTimestamp.maximumMilliseconds + 1), device: stranger),
            state: .stored(Self.object(5)))
        for database in [try Self.database(clock: clock), try Self.database(clock: clock)] {
            let summary = try database.favorites.apply([tooFar])
            #expect(summary.refused == 1 && summary.applied == 0)
            #expect(summary.firstRefusal?.contains("year 4199") == true)
        }
    }

    /// A database whose clock reads decades ahead, or the last valid stamp (a broken clock,
    /// a hostile file): a sync that would take one of its changes is refused whole, naming
    /// its device and how far ahead, and moves nothing; one within a day is taken.
    @Test(arguments: [HybridTimestamp.maximumMilliseconds, start + 64 * 365 * 24 * hour, start + 25 * hour])
    func aFileStampedTooFarAheadIsRefusedWhole(ahead: Int64) throws {
        let clock = ManualClock(Self.start)
        let here = try Self.database(clock: clock)
        try here.favorites.create(Self.object(33))
        let broken = try Self.database(clock: ManualClock(ahead))
        try broken.favorites.create(Self.object(6))
        let before = try Self.feed(here)
        for run in [{ try SyncSession.run(here, with: broken) }, { try SyncSession.run(broken, with: here) }] {
            do {
                _ = try run()
                Issue.record("a change stamped \(ahead - Self.start) ms ahead was taken")
            } catch let error as SyncError {
                guard case .stampAhead(_, 6, let device, let lead) = error else { throw error }
                #expect(device == (try broken.favorites.deviceID()) && lead == ahead - Self.start)
                #expect(error.description.contains("stamped \(HybridTimestamp.describe(lead: lead)) ahead of this machine's clock by device \(device)"), "\(error)")
            }
            #expect(try Self.feed(here) == before, "a refused sync changed this database")
        }
        #expect(HybridTimestamp.describe(lead: 64 * 365 * 24 * Self.hour) == "64 years")
        // Within a day ahead: taken, and the clocks go on from there.
        let close = try Self.database(clock: ManualClock(Self.start + 23 * Self.hour))
        try close.favorites.create(Self.object(7))
        try SyncSession.run(here, with: close)
        #expect(try here.favorites.contains(id: 7))
    }

    /// One change at the last valid stamp froze every clock that took it: a store and then a
    /// removal of the same dish took the same stamp, the removal lost, and two devices
    /// disagreed for ever (a=[6,33,50], b=[33,50]). It is refused now; stamps keep moving.
    @Test func noReceivedChangeFreezesAClock() throws {
        let clock = ManualClock(Self.start)
        let (a, b) = (try Self.database(clock: clock), try Self.database(clock: clock))
        let hostile = try Self.database(clock: ManualClock(HybridTimestamp.maximumMilliseconds))
        try hostile.favorites.create(Self.object(6))
        for id in [6, 33, 50] { try a.favorites.create(Self.object(id)) }
        try SyncSession.run(a, with: b)
        #expect(throws: SyncError.self) { try SyncSession.run(a, with: hostile) }
        clock.advance(by: 10)
        try a.favorites.create(Self.object(50, "again"))
        #expect(try a.favorites.delete(id: 50))
        #expect(try a.favorites.delete(id: 6))
        try SyncSession.run(a, with: b)
        #expect(try Self.favorites(a) == Self.favorites(b))
        #expect(try Self.favorites(a).keys.sorted() == [33])
        let stamps = try Self.feed(a).map(\.stamp.time)
        #expect(stamps.allSatisfy { $0.milliseconds <= Self.start + 10 }, "\(stamps)")
    }

    /// B stores 17 and syncs with A; A removes 17; later, B's user hearts 17 again (it is
    /// still stored on B, unchanged). The latest acknowledged action wins: 17 stays on both.
    /// (Seen red when storing what is stored changed nothing: 17 was gone on both.)
    @Test func storingAgainWhatIsStoredIsANewChangeThatWins() throws {
        let clock = ManualClock(Self.start)
        let (a, b) = (try Self.database(clock: clock), try Self.database(clock: clock))
        try b.favorites.create(Self.object(17))
        try SyncSession.run(b, with: a)
        clock.advance(by: 1_000)
        #expect(try a.favorites.delete(id: 17))
        clock.advance(by: 1_000)
        #expect(try b.favorites.create(Self.object(17)) == false, "17 was still stored on B")
        try SyncSession.run(a, with: b)
        #expect(try a.favorites.contains(id: 17) && b.favorites.contains(id: 17))
        // The same for an import that brings 17 as it is.
        clock.advance(by: 1_000)
        #expect(try a.favorites.delete(id: 17))
        clock.advance(by: 1_000)
        #expect(try b.favorites.create(contentsOf: [Self.object(17)]) == 1)
        try SyncSession.run(b, with: a)
        #expect(try a.favorites.contains(id: 17) && b.favorites.contains(id: 17))
    }

    // MARK: - The feed and a sync

    @Test func theFeedPagesInOrderAndASecondSyncMovesNothing() throws {
        let clock = ManualClock(Self.start)
        let a = try Self.database(clock: clock)
        let b = try Self.database(clock: clock)
        for id in 1...25 { try a.favorites.create(Self.object(id)) }
        let first = try a.favorites.changes(since: 0, limit: 10)
        #expect(first.changes.map(\.seq) == Array(1...10) && first.hasMore && first.lastSeq == 10)
        let last = try a.favorites.changes(since: 20, limit: 10)
        #expect(last.changes.count == 5 && !last.hasMore)
        #expect(try a.favorites.changes(since: 25, limit: 10).changes.isEmpty)
        #expect(throws: SyncError.invalidPageLimit(0)) { try a.favorites.changes(since: 0, limit: 0) }

        for id in 20...30 { try b.favorites.create(Self.object(id, "b")) }
        let summary = try SyncSession.run(a, with: b, pageLimit: 4)
        #expect(summary.received.applied + summary.received.superseded == 11)
        #expect(try Self.favorites(a) == Self.favorites(b))
        #expect(try a.favorites.count() == 30)
        let again = try SyncSession.run(a, with: b)
        #expect(again == SyncSession.Summary(), "a second sync with nothing new moves and reads nothing: \(again)")
        let reverse = try SyncSession.run(b, with: a)
        #expect(reverse == SyncSession.Summary())
    }

    /// Received changes keep the search index in step, one by one and in bulk.
    @Test(arguments: [10, 1_500])
    func appliedChangesAreSearchable(count: Int) throws {
        let clock = ManualClock(Self.start)
        let a = try Self.database(clock: clock)
        let b = try Self.database(clock: clock)
        try a.favorites.create(contentsOf: (1...count).map { Self.object($0, $0 == 7 ? "鴨南蛮" : "紹介") })
        try SyncSession.run(b, with: a)
        #expect(try b.favorites.count() == count)
        let found = try b.favorites.search(FavoritesQuery(keyword: "鴨南"), after: nil, limit: 10)
        #expect(found.page.objects.map(\.id) == [7])
        #expect(try b.queue.read { try FavoritesSearchIndex.problems(in: $0) }.isEmpty)
        // A removal received is no longer found.
        try a.favorites.delete(id: 7)
        try SyncSession.run(b, with: a)
        #expect(try b.favorites.search(FavoritesQuery(keyword: "鴨南"), after: nil, limit: 10).page.objects.isEmpty)
    }

    /// A change that supersedes a stored favorite writes what moved: the same fields under
    /// a greater stamp move only the stamp and the feed; new texts reach the search index;
    /// a new `storedAt` the newest-first order; a tie of stamps is judged by the content.
    @Test(arguments: [1, 1_500])
    func supersedingChangesWriteWhatMoved(batch: Int) throws {
        let database = try Self.database(clock: ManualClock(Self.start))
        let device = try #require(DeviceID(hex: "00112233445566778899aabbccddeeff"))
        func stamp(_ offset: Int64) -> ChangeStamp { ChangeStamp(time: HybridTimestamp(milliseconds: Self.start + offset), device: device) }
        // Padding below the bulk threshold or past it: both index paths.
        let padding = (1_000...(1_000 + batch - 1)).map { FavoriteChange(id: $0, stamp: stamp(1), state: .stored(Self.object($0))) }
        var older = Self.object(2)
        older.storedAt = Date(millisecondsSince1970: Self.start - Self.hour)
        try database.favorites.apply([1, 2, 3].map { FavoriteChange(id: $0, stamp: stamp(1), state: .stored($0 == 2 ? older : Self.object($0))) } + padding)
        let before = try database.favorites.latestChangeSeq()

        var renamed = Self.object(1, "鴨南蛮")
        renamed.dishName = "鴨南蛮そば"
        let summary = try database.favorites.apply([
            FavoriteChange(id: 1, stamp: stamp(2), state: .stored(renamed)),
            FavoriteChange(id: 2, stamp: stamp(2), state: .stored(Self.object(2))),
            FavoriteChange(id: 3, stamp: stamp(2), state: .stored(Self.object(3))),
        ] + padding.map { FavoriteChange(id: $0.id, stamp: stamp(2), state: $0.state) })
        #expect(summary.applied == 3 + batch)
        let feed = try Self.feed(database, since: before)
        #expect(feed.count == 3 + batch && feed.allSatisfy { $0.stamp == stamp(2) }, "every change moved the feed: \(feed.prefix(3))")
        #expect(try Self.favorites(database)[1] == renamed)
        #expect(try Self.favorites(database)[3] == Self.object(3))
        #expect(try database.favorites.search(FavoritesQuery(keyword: "鴨南蛮そば"), after: nil, limit: 10).page.objects.map(\.id) == [1])
        #expect(try database.favorites.search(FavoritesQuery(keyword: "料理 3"), after: nil, limit: 10).page.objects.map(\.id) == [3])
        // Favorite 2 moved up to the others' storedAt: the newest-first page reads it there.
        let page = try database.favorites.page(after: nil, limit: 3 + batch).objects.map(\.id)
        #expect(page.suffix(3) == [3, 2, 1], "newest first, then by ID: \(page.suffix(3))")
        #expect(try Self.favorites(database)[2]?.storedAt == Self.object(2).storedAt)
        #expect(try database.queue.read { try FavoritesSearchIndex.problems(in: $0) }.isEmpty)

        // Equal stamps: removed precedes stored, then the fields in byte order.
        let tie = try database.favorites.apply([
            FavoriteChange(id: 3, stamp: stamp(2), state: .removed),
            FavoriteChange(id: 3, stamp: stamp(2), state: .stored(Self.object(3, "紹介Z"))),
            FavoriteChange(id: 3, stamp: stamp(2), state: .stored(Self.object(3, "紹介A"))),
        ])
        #expect(tie.applied == 1 && tie.alreadyHeld + tie.superseded == 2, "\(tie)")
        #expect(try Self.favorites(database)[3] == Self.object(3, "紹介Z"))
    }

    @Test func invalidChangesAreRefusedAndCounted() throws {
        let database = try Self.database(clock: ManualClock(Self.start))
        let device = try #require(DeviceID(hex: "0123456789abcdef0123456789ABCDEF"))
        #expect(device.description == "0123456789abcdef0123456789abcdef")
        #expect(DeviceID(hex: "xyz") == nil && DeviceID(bytes: [1, 2]) == nil)
        let stamp = ChangeStamp(time: HybridTimestamp(milliseconds: Self.start), device: device)
        var blank = Self.object(3)
        blank.dishName = " "
        let summary = try database.favorites.apply([
            FavoriteChange(id: 0, stamp: stamp, state: .removed),
            FavoriteChange(id: 3, stamp: stamp, state: .stored(blank)),
            FavoriteChange(id: 4, stamp: stamp, state: .stored(Self.object(5))),
            FavoriteChange(id: 6, stamp: stamp, state: .stored(Self.object(6))),
        ])
        #expect(summary.refused == 3 && summary.applied == 1)
        #expect(try database.favorites.count() == 1)
    }

    // MARK: - Migration

    /// The released schema-v2 file moves forward: its favorites stamped by this device in
    /// the order they were stored, its device ID in the settings.
    @Test func aSchemaV2DatabaseGetsStampsFromItsStoredAt() throws {
        let directory = try TemporaryDirectory()
        let path = try ReleasedSchemaTests.copyOfFixture("schema-v2.sqlite3", into: directory)
        let database = try ArchiveDatabase(path: path)
        let objects = try database.favorites.allObjects()
        #expect(!objects.isEmpty)
        let feed = try Self.feed(database)
        #expect(feed.count == objects.count)
        let device = try database.favorites.deviceID()
        #expect(feed.allSatisfy { $0.stamp.device == device })
        let storedOrder = objects.sorted { ($0.storedAt.millisecondsSince1970, $0.id) < ($1.storedAt.millisecondsSince1970, $1.id) }
        #expect(feed.map(\.id) == storedOrder.map(\.id))
        for change in feed {
            guard case .stored(let object) = change.state else { Issue.record("\(change.id) not stored"); continue }
            // Times before 1970 (the fixture keeps one) start the clock at 0.
            let milliseconds = min(max(object.storedAt.millisecondsSince1970, 0), HybridTimestamp.maximumMilliseconds)
            #expect(change.stamp.time == HybridTimestamp(milliseconds: milliseconds))
        }
        let setting = try database.keyValueStore.storedValue(named: "deviceID", as: String.self)
        #expect(setting == device.description)
        // The next local change comes after every migrated one.
        try database.favorites.create(Self.object(9_999))
        #expect(try Self.feed(database).last.map { change in feed.allSatisfy { $0.stamp < change.stamp } } == true)
    }
}
