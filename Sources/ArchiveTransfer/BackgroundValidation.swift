import ArchiveStorage
import Dispatch
import Foundation
import Synchronization

/// An import's checking pass, run on a thread of its own while the caller's
/// thread stores the same file: the import uses a second core, and the storing
/// pass commits only once this one has found every record good.
///
/// The pass reads the whole file (it finds a bad record long before the storing
/// pass reaches it, since it stores nothing) and then, when some IDs may repeat,
/// reads it again to count them (see ``DuplicateIDCounter``). The storing pass
/// takes each record through ``next(from:)``, which stops it at the first bad
/// record either pass meets and, at the end of the file, waits for this one.
final class BackgroundValidation: Sendable {
    /// How the pass ended.
    private enum Outcome {
        case finished(DuplicateIDCounter)
        case failed(any Error)
        case cancelled
    }

    /// The pass stopped because ``cancel()`` asked it to.
    struct Cancelled: Error {}

    private let cancelled = Atomic<Bool>(false)
    /// How the pass ended; `nil` while it runs.
    private let outcome = Mutex<Outcome?>(nil)
    /// Signalled once when the pass ends; every wait passes the signal on.
    private let ended = DispatchSemaphore(value: 0)

    /// Starts `pass` on a thread of its own. `pass` calls its argument often and
    /// throws ``Cancelled`` when it returns true. `whenEnded` runs on that thread
    /// once the outcome is recorded (tests order the two passes with it).
    ///
    /// A thread of its own, not a dispatch queue: the caller blocks its thread
    /// until the pass ends (`archive import` blocks a thread of Swift concurrency's
    /// pool, and so do tests), and a pool no wider than the machine's cores could
    /// leave the pass no thread to run on.
    init(
        _ pass: @escaping @Sendable (_ isCancelled: () -> Bool) throws -> DuplicateIDCounter,
        whenEnded: @escaping @Sendable () -> Void = {}
    ) {
        Thread.detachNewThread { [self] in
            let outcome: Outcome
            do {
                outcome = .finished(try pass { self.cancelled.load(ordering: .relaxed) })
            } catch is Cancelled {
                outcome = .cancelled
            } catch {
                outcome = .failed(error)
            }
            self.outcome.withLock { $0 = outcome }
            whenEnded()
            self.ended.signal()
        }
    }

    /// The error of the pass, once it has failed (`nil` while it runs or after it succeeded).
    var failure: (any Error)? {
        outcome.withLock { outcome in
            if case .failed(let error) = outcome { return error }
            return nil
        }
    }

    /// The storing pass's next record from `records`: throws this pass's error
    /// once it has failed (without reading on); at the end of the records (`nil`),
    /// waits for this pass and throws its error, so that nothing is committed
    /// before every record has been found good.
    func next(from records: () throws -> StoredArchiveObject?) throws -> StoredArchiveObject? {
        if let failure { throw failure }
        if let record = try records() { return record }
        _ = try counter()
        return nil
    }

    /// Waits for the pass to end; returns its counter, or throws its error.
    func counter() throws -> DuplicateIDCounter {
        waitForEnd()
        switch outcome.withLock({ $0 }) {
        case .finished(let counter): return counter
        case .failed(let error): throw error
        case .cancelled, nil: throw Cancelled()
        }
    }

    /// Stops the pass and waits for its thread to end (it never outlives the import,
    /// whose spooled input it may be reading).
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        waitForEnd()
    }

    private func waitForEnd() {
        ended.wait()
        ended.signal()
    }
}
