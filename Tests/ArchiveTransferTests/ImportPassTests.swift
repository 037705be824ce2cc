@testable import ArchiveTransfer
import ArchiveStorage
import Foundation
import Synchronization
import TestSupport
import Testing
import ArchiveSyncModel

/// Favorites over a real database whose bulk store fails after `failAfter` records;
/// it counts the records it pulled.
private final class CountingBulkRepository: ForwardingFavoritesRepository, Sendable {
    let base: SQLiteStoredArchiveDataRepository
    let failAfter: Int?
    let pulls = Atomic<Int>(0)
    struct DiskFull: Error {}

    init(base: SQLiteStoredArchiveDataRepository, failAfter: Int? = nil) {
        self.base = base
        self.failAfter = failAfter
    }

    func create(from next: () throws -> StoredArchiveObject?, progress: (Int) -> Void) throws -> Int {
        try base.create(from: {
            let pulled = pulls.add(1, ordering: .relaxed).newValue
            if let failAfter, pulled > failAfter { throw DiskFull() }
            return try next()
        }, progress: progress)
    }
}

/// An import reads its file once, storing as it checks, and counts repeated IDs on the way
/// (a second reading only when a large ID may repeat).
@Suite(.timeLimit(.minutes(5)))
struct ImportPassTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A file of `ids.count` records (the record at `badIndex`, if any, has a bad date).
    func file(ids: [Int], badIndex: Int? = nil) throws -> String {
        var text = "["
        for (index, id) in ids.enumerated() {
            if index > 0 { text += ",\n" }
            let date = index == badIndex ? "not a date" : "2026-01-01T00:00:00.000Z"
            text += #"{"id": \#(id), "photoUrl": "p", "category": "c", "dishName": "料理 \#(id)", "shopName": "s", "introduction": "i", "storedAt": "\#(date)"}"#
        }
        text += "]"
        let path = directory.path("import-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Imports `path`; returns the summary and the phases its progress went through.
    func importFile(_ path: String, into favorites: any StoredArchiveDataRepository) throws -> (FavoritesImporter.Summary, Set<FavoritesImporter.Progress.Phase>) {
        var phases: Set<FavoritesImporter.Progress.Phase> = []
        let summary = try FavoritesImporter(path: path).run(into: favorites) { phases.insert($0.phase) }
        return (summary, phases)
    }

    @Test func repeatedSmallIDsAreCountedInOneReading() throws {
        // 15,000 records over 12,000 IDs: 3,000 repeat an earlier record; 10 IDs are stored already.
        let database = try ArchiveDatabase.inMemory()
        for id in 1...10 {
            try database.favorites.create(StoredArchiveObject(
                id: id, photoUrl: "", category: "", dishName: "old", shopName: "", introduction: "",
                storedAt: Date(millisecondsSince1970: 0)))
        }
        let path = try file(ids: (0..<15_000).map { $0 % 12_000 + 1 })
        let (summary, phases) = try importFile(path, into: database.favorites)
        #expect(summary == .init(records: 15_000, imported: 12_000))
        #expect(phases == [.importing], "a file of small IDs was read a second time")
        #expect(try database.favorites.count() == 12_000)
        #expect(try database.favorites.object(id: 3)?.dishName == "料理 3")
    }

    @Test func repeatedLargeIDsAreCountedByASecondReading() throws {
        // Small and large IDs mixed: 12,000 large IDs, 1,500 of them twice, one of them
        // three times, and 500 small IDs twice.
        let large = (0..<12_000).map { (1 << 40) + $0 * 7_919 }
        let ids = large + large.prefix(1_500) + [large[42]] + Array(1...500) + Array(1...500)
        let database = try ArchiveDatabase.inMemory()
        let (summary, phases) = try importFile(try file(ids: ids), into: database.favorites)
        #expect(summary == .init(records: ids.count, imported: 12_500))
        #expect(phases == [.importing, .validating])
        #expect(try database.favorites.count() == 12_500)
    }

    @Test func largeIDsThatNeverRepeatCountNone() throws {
        // As many large IDs as the filter was sized for: its false positives are counted
        // again and found once each.
        let ids = (0..<20_000).map { Int.max - $0 * 104_729 }
        let database = try ArchiveDatabase.inMemory()
        let (summary, phases) = try importFile(try file(ids: ids), into: database.favorites)
        #expect(summary == .init(records: 20_000, imported: 20_000))
        #expect(phases == [.importing, .validating], "no false positive: the test would not count them")
    }

    @Test func theCounterIsExactBelowItsDirectLimitAndCountsCandidatesAbove() throws {
        var counter = DuplicateIDCounter(expectedRecords: 10)
        #expect(counter.directLimit == 1 << 15)
        for id in [0, 1, 1, 2, counter.directLimit - 1, counter.directLimit - 1] { counter.note(id) }
        #expect(!counter.hasCandidates)
        #expect(counter.repeats == 2)
        // At the limit and beyond (negative IDs too): the Bloom filter, then the second pass.
        let above = [counter.directLimit, Int.max, -5]
        for id in above + above + [Int.max] { counter.note(id) }
        #expect(counter.hasCandidates)
        for id in above + above + [Int.max] { counter.count(id) }
        #expect(counter.repeats == 2 + 4)
        // Sized by the file: 8 IDs a record counted directly.
        #expect(DuplicateIDCounter(expectedRecords: 1_000_000).directLimit == 1 << 23)
    }

    /// A bad record stops the import where the storing pass meets it: every record
    /// before it was pulled, none after, and nothing is stored.
    @Test func aBadRecordRollsEverythingBack() throws {
        let database = try ArchiveDatabase.inMemory()
        let counting = CountingBulkRepository(base: database.favorites)
        let path = try file(ids: Array(1...1_000), badIndex: 600)
        let error = try #require(throws: FavoritesImportError.self) { try FavoritesImporter(path: path).run(into: counting) }
        guard case .invalidRecord(index: 600, field: "storedAt", _) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(counting.pulls.load(ordering: .relaxed) == 601)
        #expect(try database.favorites.count() == 0)
    }

    /// A failure of the store itself (the disk) is reported as it is; nothing is stored.
    @Test func aStorageErrorIsReported() throws {
        let database = try ArchiveDatabase.inMemory()
        let failing = CountingBulkRepository(base: database.favorites, failAfter: 10)
        let path = try file(ids: Array(1...20_000))
        #expect(throws: CountingBulkRepository.DiskFull.self) { try FavoritesImporter(path: path).run(into: failing) }
        #expect(try database.favorites.count() == 0)
    }
}
