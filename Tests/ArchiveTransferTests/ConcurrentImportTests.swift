@testable import ArchiveTransfer
import ArchiveStorage
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// Favorites over a real database whose bulk store, before its second record, waits
/// for `gate` (the test signals it when the checking pass has ended), or fails after
/// `failAfter` records; it counts the records it pulled.
private final class GatedBulkRepository: ForwardingFavoritesRepository, Sendable {
    let base: SQLiteStoredArchiveDataRepository
    let gate: DispatchSemaphore?
    let failAfter: Int?
    let pulls = Atomic<Int>(0)
    let gateTimedOut = Atomic<Bool>(false)
    struct DiskFull: Error {}

    init(base: SQLiteStoredArchiveDataRepository, gate: DispatchSemaphore? = nil, failAfter: Int? = nil) {
        self.base = base
        self.gate = gate
        self.failAfter = failAfter
    }

    func create(from next: () throws -> StoredArchiveObject?, progress: (Int) -> Void) throws -> Int {
        try base.create(from: {
            let pulled = pulls.add(1, ordering: .relaxed).newValue
            if let failAfter, pulled > failAfter { throw DiskFull() }
            if pulled == 2, let gate, gate.wait(timeout: .now() + 60) == .timedOut {
                gateTimedOut.store(true, ordering: .relaxed)
            }
            return try next()
        }, progress: progress)
    }
}

/// The import's checking pass runs beside its storing pass (BackgroundValidation).
/// No test sleeps: the passes are ordered with semaphores, each wait with a deadline.
struct ConcurrentImportTests {
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

    static let record = StoredArchiveObject(
        id: 1, photoUrl: "", category: "", dishName: "d", shopName: "", introduction: "", storedAt: Date(millisecondsSince1970: 0))

    @Test func repeatedIDsAreCountedByTheCheckingPass() throws {
        // 5,000 records over 4,000 IDs: 1,000 repeat an earlier record; 10 IDs are stored already.
        let database = try ArchiveDatabase.inMemory()
        for id in 1...10 {
            try database.favorites.create(StoredArchiveObject(
                id: id, photoUrl: "", category: "", dishName: "old", shopName: "", introduction: "",
                storedAt: Date(millisecondsSince1970: 0)))
        }
        let path = try file(ids: (0..<5_000).map { $0 % 4_000 + 1 })
        #expect(try FavoritesImporter(path: path).run(into: database.favorites) == .init(records: 5_000, imported: 4_000))
        #expect(try database.favorites.count() == 4_000)
        #expect(try database.favorites.object(id: 3)?.dishName == "料理 3")
    }

    /// The storing pass takes its first record, then waits until the checking pass has
    /// ended on the bad last record: its next record must be that pass's error, not a
    /// read onward. Nothing is stored.
    ///
    /// On a busy machine the checking pass can reach the bad record before the storing
    /// pass asks for its first one (it starts first, and 1,000 small records take about
    /// a millisecond); then the first pull is the error. So 1 or 2 pulls, never more:
    /// an exact 2 made this test depend on the scheduler.
    @Test func aBadRecordStopsTheStoringPassAtItsNextRecord() throws {
        let database = try ArchiveDatabase.inMemory()
        let checkingPassEnded = DispatchSemaphore(value: 0)
        let gated = GatedBulkRepository(base: database.favorites, gate: checkingPassEnded)
        let path = try file(ids: Array(1...1_000), badIndex: 999)
        let error = try #require(throws: FavoritesImportError.self) {
            try FavoritesImporter(path: path).run(into: gated, progress: { _ in }, whenCheckingPassEnds: { checkingPassEnded.signal() })
        }
        guard case .invalidRecord(index: 999, field: "storedAt", _) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        let timedOut = gated.gateTimedOut.load(ordering: .relaxed)
        let pulls = gated.pulls.load(ordering: .relaxed)
        #expect(!timedOut)
        #expect((1...2).contains(pulls), "\(pulls) records pulled")
        #expect(try database.favorites.count() == 0)
    }

    /// A failure of the storing pass itself (the disk) is reported as it is, once the
    /// checking pass has stopped; a good file's check never masks it.
    @Test func aStorageErrorIsReportedAndTheCheckingPassStops() throws {
        let database = try ArchiveDatabase.inMemory()
        let failing = GatedBulkRepository(base: database.favorites, failAfter: 10)
        let path = try file(ids: Array(1...20_000))
        #expect(throws: GatedBulkRepository.DiskFull.self) { try FavoritesImporter(path: path).run(into: failing) }
        #expect(try database.favorites.count() == 0)
    }

    @Test func theCheckingPassIsWaitedForFailsOrIsCancelled() throws {
        // counter() waits for a pass that is still running.
        let release = DispatchSemaphore(value: 0)
        let running = BackgroundValidation { _ in
            release.wait()
            var counter = DuplicateIDCounter(expectedRecords: 2)
            counter.note(7)
            counter.note(7)
            counter.count(7)
            counter.count(7)
            return counter
        }
        #expect(running.failure == nil)
        release.signal()
        #expect(try running.counter().repeats == 1)
        #expect(try running.counter().repeats == 1)  // asked again: no second wait

        // A failed pass says so, and counter() throws its error.
        struct Bad: Error {}
        let failing = BackgroundValidation { _ in throw Bad() }
        #expect(throws: Bad.self) { try failing.counter() }
        #expect(failing.failure is Bad)

        // cancel() stops a pass that would otherwise run until its deadline, and waits for it.
        struct TimedOut: Error {}
        let endless = BackgroundValidation { isCancelled in
            let deadline = ContinuousClock.now + .seconds(60)
            while !isCancelled() {
                if ContinuousClock.now > deadline { throw TimedOut() }
                sched_yield()
            }
            throw BackgroundValidation.Cancelled()
        }
        endless.cancel()
        #expect(endless.failure == nil)
        #expect(throws: BackgroundValidation.Cancelled.self) { try endless.counter() }
    }

    /// The storing pass takes its records through next(from:): once the checking pass has
    /// failed, no record is read; at the end of the records it waits for the checking
    /// pass, so a failure found after the storing pass's last record still stops the commit.
    @Test func theStoringPassNeverReadsOnAfterAFailureAndWaitsAtTheEnd() throws {
        struct Bad: Error {}
        // While the pass runs, records come through; once it has failed, none is read.
        let release = DispatchSemaphore(value: 0)
        let failing = BackgroundValidation { _ in
            release.wait()
            throw Bad()
        }
        #expect(try failing.next { Self.record } == Self.record)
        release.signal()
        #expect(throws: Bad.self) { try failing.counter() }
        #expect(throws: Bad.self) {
            try failing.next {
                Issue.record("a record was read after the checking pass failed")
                return Self.record
            }
        }

        // The storing thread reaches the end of its records first; the pass fails after.
        let failLater = DispatchSemaphore(value: 0)
        let reachedEnd = DispatchSemaphore(value: 0)
        let answered = DispatchSemaphore(value: 0)
        let late = BackgroundValidation { _ in
            failLater.wait()
            throw Bad()
        }
        let answer = Mutex<Result<StoredArchiveObject?, any Error>?>(nil)
        Thread.detachNewThread {
            let result = Result {
                try late.next {
                    reachedEnd.signal()
                    return nil
                }
            }
            answer.withLock { $0 = result }
            answered.signal()
        }
        #expect(reachedEnd.wait(timeout: .now() + 60) == .success)
        failLater.signal()
        #expect(answered.wait(timeout: .now() + 60) == .success)
        switch answer.withLock({ $0 }) {
        case .failure(let error): #expect(error is Bad)
        case .success(let value): Issue.record("the end of the records gave \(String(describing: value)) before the checking pass ended")
        case nil: Issue.record("no answer")
        }
    }
}
