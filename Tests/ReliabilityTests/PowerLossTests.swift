import CrashVFS
import ArchiveStorage
import ArchiveTransfer
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// The power cut at every write of the engine's workloads (``PowerCut``): hearts and
/// removals, a 200-favorite bulk store, settings, a sync between two files, the schema
/// upgrade from the first release, `archive import` into an existing and into a new
/// database, a 100,000-favorite import (sampled), and the server's pushes and pulls on its
/// SQLite backend (`PowerLossTests+Server.swift`); an I/O error at every call of each but
/// the 100,000-favorite import (sampled: every second to eighth call, as long as the
/// workload); and the harness against two broken mutations. RELIABILITY.md, cases
/// 84-93, gives the counts. `POWER_LOSS_EXHAUSTIVE=1` tries every point in every mode
/// (about three times the sample); `POWER_LOSS_REPORT=1` prints the counts.
@Suite(.serialized, .blockingWork, .timeLimit(.minutes(5)))
struct PowerLossTests {
    /// What a file holds that a power cut could lose: each favorite's dish name, the
    /// onboarding flag and the last search.
    struct Snapshot: Equatable, Sendable, CustomStringConvertible {
        var favorites: [Int: String]
        var onboarding: Bool
        var lastSearch: String
        var description: String {
            "\(favorites.count) favorites \(favorites.keys.sorted().prefix(8))…, onboarding \(onboarding), last search \(lastSearch.debugDescription)"
        }
    }

    static let lastSearch = KeyValueStore.Key<String>("lastSearchKeyword", default: "")

    /// Opens `path` through the default VFS (recovering it), checks it, and reads its snapshot.
    static func read(_ path: String) throws -> Snapshot {
        let database = try ArchiveDatabase(path: path)
        let report = try database.integrityReport()
        guard report.isOK else { throw PowerCutError("check failed: \(report.problems)") }
        return Snapshot(
            favorites: Dictionary(uniqueKeysWithValues: try database.favorites.allObjects().map { ($0.id, $0.dishName) }),
            onboarding: try database.onboarding.shouldShowOnboarding(),
            lastSearch: try database.keyValueStore.value(for: lastSearch))
    }

    static func object(_ id: Int, name: String? = nil) -> StoredArchiveObject {
        StoredArchiveObject(
            id: id, photoUrl: "https://p/\(id).jpg", category: ["和食", "洋食", "中華"][id % 3], dishName: name ?? "料理 \(id)",
            shopName: "店 \(id)", introduction: "紹介 \(id) チーズ")
    }

    /// Ten favorites, onboarding shown, no search: the file every workload starts from.
    static func prepareTen(_ path: String) throws {
        let database = try ArchiveDatabase(path: path)
        try database.favorites.create(contentsOf: (1...10).map { object($0) })
    }

    /// Hearts, a removal, the onboarding flag, a search remembered, a 200-favorite bulk store
    /// (all or nothing) and a removal after it, on one connection, as the TUI or a long
    /// `archive` session keeps it.
    static var hearts: PowerCut.Workload<Snapshot> {
        let steps: [(ArchiveDatabase) throws -> Void] = [
            { try $0.favorites.create(Self.object(21)) },
            { try $0.favorites.create(Self.object(5, name: "改名")) },
            { _ = try $0.favorites.delete(id: 3) },
            { try $0.onboarding.changeOnboardingStatusFalse() },
            { try $0.keyValueStore.set("チーズ", for: Self.lastSearch) },
            { try $0.favorites.create(contentsOf: (1_000..<1_200).map { Self.object($0) }) },
            { _ = try $0.favorites.delete(id: 21) },
        ]
        return PowerCut.Workload<Snapshot>(
            prepare: { try Self.prepareTen($0.path("f.sqlite3")) },
            steps: steps.count,
            run: { directory, configuration, count, acknowledged in
                let database = try ArchiveDatabase(path: directory.path("f.sqlite3"), configuration: configuration)
                for step in steps.prefix(count) {
                    try step(database)
                    acknowledged()
                }
            },
            read: { try Self.read($0.path("f.sqlite3")) })
    }

    @Test func heartsSettingsAndABulkStoreSurviveAPowerCutAtEveryWrite() async throws {
        let tried = try await PowerCut.everyPoint(Self.hearts)
        #expect(tried.points >= 10)
    }

    /// The same workload with an I/O error (or a full disk) at each of its I/O calls in turn.
    @Test func heartsSettingsAndABulkStoreSurviveAnIOErrorAtEveryCall() async throws {
        let tried = try await PowerCut.everyIOError(Self.hearts)
        #expect(tried.calls >= 50)
        // SQLite's words for both, with the file named.
        #expect(tried.errors.contains { $0.contains("disk I/O error") }, "\(tried.errors)")
        #expect(tried.errors.contains { $0.contains("full") }, "\(tried.errors)")
    }

    /// The same hearts as separate `archive` commands: each opens the file, commits, and
    /// closes it (a checkpoint into the database, the WAL removed).
    @Test func oneCommandAtATimeSurvivesAPowerCutAtEveryWrite() async throws {
        let steps: [(ArchiveDatabase) throws -> Void] = [
            { try $0.favorites.create(Self.object(21)) },
            { _ = try $0.favorites.delete(id: 3) },
            { try $0.onboarding.changeOnboardingStatusFalse() },
        ]
        let workload = PowerCut.Workload<Snapshot>(
            prepare: { try Self.prepareTen($0.path("f.sqlite3")) },
            steps: steps.count,
            run: { directory, configuration, count, acknowledged in
                for step in steps.prefix(count) {
                    let database = try ArchiveDatabase(path: directory.path("f.sqlite3"), configuration: configuration)
                    try step(database)
                    acknowledged()
                }
            },
            read: { try Self.read($0.path("f.sqlite3")) })
        try await PowerCut.everyPoint(workload)
        try await PowerCut.everyIOError(workload, stride: 4)
    }

    /// Two files' snapshots.
    struct Pair: Equatable, Sendable, CustomStringConvertible {
        var here: Snapshot
        var there: Snapshot
        var description: String { "here \(here), there \(there)" }
    }

    /// A sync between two files by `sync` (one step): each side's apply is all or nothing (a
    /// cut between the two sides' commits may leave one done, the other not), and whatever
    /// the cut left, syncing again converges both to the same favorites (no cursor got ahead
    /// of what it counts).
    static func sync(_ sync: @escaping (_ here: ArchiveDatabase, _ there: ArchiveDatabase) throws -> Void) -> PowerCut.Workload<Pair> {
        PowerCut.Workload<Pair>(
            prepare: { directory in
                try Self.prepareTen(directory.path("here.sqlite3"))
                let there = try ArchiveDatabase(path: directory.path("there.sqlite3"))
                try there.favorites.create(contentsOf: (8...14).map { Self.object($0, name: "向こう \($0)") })
                try there.onboarding.changeOnboardingStatusFalse()
            },
            steps: 1,
            run: { directory, configuration, count, acknowledged in
                guard count > 0 else { return }
                var peer = configuration
                peer.trustsSchema = false
                let here = try ArchiveDatabase(path: directory.path("here.sqlite3"), configuration: configuration)
                let there = try ArchiveDatabase(path: directory.path("there.sqlite3"), configuration: peer)
                try sync(here, there)
                acknowledged()
            },
            read: { directory in
                let pair = Pair(here: try Self.read(directory.path("here.sqlite3")), there: try Self.read(directory.path("there.sqlite3")))
                // Whatever the cut left, the next sync brings both to the same favorites.
                let here = try ArchiveDatabase(path: directory.path("here.sqlite3"))
                try SyncSession.run(here, with: try ArchiveDatabase(path: directory.path("there.sqlite3")))
                let converged = (try Self.read(directory.path("here.sqlite3")), try Self.read(directory.path("there.sqlite3")))
                guard converged.0.favorites == converged.1.favorites, converged.0.favorites.count == 14 else {
                    throw PowerCutError("the next sync did not converge: here \(converged.0), there \(converged.1)")
                }
                return pair
            },
            accepts: { state, acknowledged, states in
                // Each side as before the sync or as after it; both after once it returned.
                let (before, after) = (states[0], states[1])
                if acknowledged == 1 { return state == after }
                return (state.here == before.here || state.here == after.here) && (state.there == before.there || state.there == after.there)
            })
    }

    @Test func aSyncBetweenTwoFilesSurvivesAPowerCutAtEveryWrite() async throws {
        let workload = Self.sync { try SyncSession.run($0, with: $1) }
        try await PowerCut.everyPoint(workload)
        try await PowerCut.everyIOError(workload, stride: 4)
    }

    /// The harness catches a sync that records how far it read the other file's feed in a
    /// transaction of its own, before the changes it read: a cut between the two leaves the
    /// cursor past changes never applied, which no later sync sends again.
    @Test func theHarnessCatchesACursorWrittenInItsOwnTransaction() async throws {
        let split = Self.sync { here, there in
            let feed = FeedID(of: try there.favorites.deviceID())
            let page = try there.favorites.changes(since: try here.favorites.receivedCursor(from: feed))
            _ = try here.favorites.apply([], from: feed, through: page.lastSeq)  // the cursor, alone
            _ = try here.favorites.apply(page.changes.map(\.change))  // then the changes
        }
        // Each lost change the harness finds is recorded as a known issue: a passing run's
        // summary counts them ("with 30 known issues"), which are this meta-test's catches,
        // not failures of the product.
        await withKnownIssue("expected: the power-cut harness catching a deliberately broken sync (theHarnessCatchesACursorWrittenInItsOwnTransaction's own mutant), not a fault of archive") {
            try await PowerCut.everyPoint(split)
        }
    }

    /// The schema upgrade from the first release (schema v2, with its favorites and flag):
    /// cut anywhere, the file opens, finishes its upgrade and holds every row.
    @Test func theUpgradeFromTheFirstReleaseSurvivesAPowerCutAtEveryWrite() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../ArchiveStorageTests/Fixtures/schema-v2.sqlite3").standardized.path
        let workload = PowerCut.Workload<Snapshot>(
            prepare: { directory in try FileManager.default.copyItem(atPath: fixture, toPath: directory.path("old.sqlite3")) },
            steps: 1,
            run: { directory, configuration, count, acknowledged in
                guard count > 0 else { return }
                _ = try ArchiveDatabase(path: directory.path("old.sqlite3"), configuration: configuration)
                acknowledged()
            },
            read: { directory in
                let snapshot = try Self.read(directory.path("old.sqlite3"))
                let status = try ArchiveDatabase.migrationStatus(path: directory.path("old.sqlite3"))
                guard status.pending.isEmpty else { throw PowerCutError("migrations pending after the open: \(status.pending)") }
                return snapshot
            })
        let tried = try await PowerCut.everyPoint(workload)
        #expect(tried.points >= 5)
        try await PowerCut.everyIOError(workload, stride: 4)
    }

    /// A JSON file of the favorites `ids`, in the export format, at `path`.
    static func exportFile(_ path: String, ids: Range<Int>) throws {
        var text = "["
        for id in ids {
            if id != ids.lowerBound { text += ",\n" }
            text += #"{"id": \#(id), "photoUrl": "https://p/\#(id).jpg", "category": "洋食", "dishName": "輸入 \#(id)", "shopName": "店", "introduction": "紹介", "storedAt": "2026-01-01T00:00:00.000Z"}"#
        }
        text += "]"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// `archive import FILE` into the existing database at `path`, opened with `configuration`.
    static func importFile(_ json: String, into path: String, configuration: Configuration) throws {
        let database = try ArchiveDatabase(path: path, configuration: configuration)
        _ = try FavoritesImporter(path: json).run(into: database.favorites)
    }

    /// An import's files: the existing database, and the new one (nil while it is missing).
    struct Imported: Equatable, Sendable, CustomStringConvertible {
        var existing: Snapshot
        var new: Snapshot?
        var description: String { "existing \(existing), new \(new.map { "\($0)" } ?? "missing")" }
    }

    /// `archive import` of 200 favorites into an existing database, then into a new one
    /// (built beside its path with a rollback journal, and linked into place only once
    /// whole: ``NewDatabaseFile``): each all or nothing, the new file missing or whole.
    @Test func aTwoHundredFavoriteImportIsAllOrNothingAtEveryWrite() async throws {
        let source = try TemporaryDirectory()
        let json = source.path("import.json")
        try Self.exportFile(json, ids: 5..<205)
        let workload = PowerCut.Workload<Imported>(
            prepare: { try Self.prepareTen($0.path("f.sqlite3")) },
            steps: 2,
            run: { directory, configuration, count, acknowledged in
                if count >= 1 {
                    try Self.importFile(json, into: directory.path("f.sqlite3"), configuration: configuration)
                    acknowledged()
                }
                if count >= 2 {
                    var builder = NewDatabaseFile(creating: directory.path("new.sqlite3"))
                    builder.configuration = configuration
                    _ = try builder.build { try FavoritesImporter(path: json).run(into: $0.favorites) }
                    acknowledged()
                }
            },
            read: { directory in
                let new = directory.path("new.sqlite3")
                return Imported(
                    existing: try Self.read(directory.path("f.sqlite3")),
                    new: FileManager.default.fileExists(atPath: new) ? try Self.read(new) : nil)
            })
        let tried = try await PowerCut.everyPoint(workload)
        #expect(tried.points >= 10)
        try await PowerCut.everyIOError(workload, stride: 8)
    }

    /// An import of 100,000 favorites into an existing database, cut at points spread over
    /// it (every point would take hours): all or nothing.
    @Test func aHundredThousandFavoriteImportIsAllOrNothingAtSampledWrites() async throws {
        let source = try TemporaryDirectory()
        let json = source.path("import.json")
        try Self.exportFile(json, ids: 1..<100_001)
        let workload = PowerCut.Workload<Snapshot>(
            prepare: { try Self.prepareTen($0.path("f.sqlite3")) },
            steps: 1,
            run: { directory, configuration, count, acknowledged in
                guard count > 0 else { return }
                try Self.importFile(json, into: directory.path("f.sqlite3"), configuration: configuration)
                acknowledged()
            },
            read: { try Self.read($0.path("f.sqlite3")) })
        let tried = try await PowerCut.everyPoint(workload, sample: .spread(3))
        #expect(tried.points >= 100)
    }

    /// The harness can fail: with commits that return before their WAL is synced
    /// (`synchronous=NORMAL`), a power cut right after two acknowledged hearts loses them;
    /// with FULL, it keeps them.
    @Test(arguments: [Configuration.Synchronous.normal, .full])
    func theHarnessCatchesCommitsAcknowledgedBeforeTheirSync(synchronous: Configuration.Synchronous) throws {
        let directory = try TemporaryDirectory()
        try Self.prepareTen(directory.path("f.sqlite3"))
        var configuration = try PowerCut.configuration()
        configuration.synchronous = synchronous
        crash_vfs_arm(0)
        do {
            let database = try ArchiveDatabase(path: directory.path("f.sqlite3"), configuration: configuration)
            try database.favorites.create(Self.object(21))  // acknowledged
            try database.favorites.create(Self.object(22))  // acknowledged
            crash_vfs_cut_now()  // before the close's checkpoint
        }
        #expect(crash_vfs_power_cut(PowerCut.Mode.dropAll.rawValue, 1) == 0)
        let after = try Self.read(directory.path("f.sqlite3"))
        let kept = after.favorites[21] != nil && after.favorites[22] != nil
        #expect(kept == (synchronous == .full), "\(synchronous): \(after)")
        crash_vfs_arm(0)
    }
}
