package import SQLite
package import ArchiveSyncModel

/// The sync clock and sequence of one database, read and written inside a write
/// transaction: every change the transaction makes or receives takes the next `seq`, and
/// a local change the next ``HybridTimestamp``. Saved once, at the end of the transaction.
package struct SyncLedger {
    /// The `sync_devices` number of this database's own device.
    package static let localDeviceRef: Int64 = 1

    /// The greatest stamp made or received.
    package private(set) var clock: HybridTimestamp
    /// The last seq given.
    package private(set) var seq: Int64
    /// Unix milliseconds now.
    private let wallClock: () -> Int64
    private var changed = false

    /// The ledger as `sync_state` holds it, with `wallClock` for new stamps.
    package static func load(in db: Database, wallClock: @escaping () -> Int64) throws -> SyncLedger {
        let state = try db.fetchOne("SELECT clock, seq FROM sync_state WHERE one = 1") { row in
            (try row.int64(at: 0), try row.int64(at: 1))
        }
        guard let state else { throw SyncError.stateMissing(path: db.path) }
        return SyncLedger(clock: HybridTimestamp(rawValue: state.0), seq: state.1, wallClock: wallClock)
    }

    private init(clock: HybridTimestamp, seq: Int64, wallClock: @escaping () -> Int64) {
        self.clock = clock
        self.seq = seq
        self.wallClock = wallClock
    }

    /// The stamp and seq the next change made here would take, now; the ledger moves only
    /// when ``take(_:)`` is given them (a write that turns out to change nothing takes none).
    package func nextLocalChange() -> (time: HybridTimestamp, seq: Int64) {
        (HybridTimestamp.next(after: clock, wallClock: wallClock()), seq + 1)
    }

    /// Records that a local change took `stamp` (from ``nextLocalChange()``).
    package mutating func take(_ stamp: (time: HybridTimestamp, seq: Int64)) {
        clock = max(clock, stamp.time)
        seq = max(seq, stamp.seq)
        changed = true
    }

    /// Moves the clock to `time` if it is ahead (a received stamp, applied or not).
    package mutating func observe(_ time: HybridTimestamp) {
        guard time > clock else { return }
        clock = time
        changed = true
    }

    /// The seq of a received change that is applied.
    package mutating func nextSeq() -> Int64 {
        seq += 1
        changed = true
        return seq
    }

    /// Writes the clock and seq back, if anything moved.
    package func save(in db: Database) throws {
        guard changed else { return }
        try db.execute("UPDATE sync_state SET clock = ?, seq = ? WHERE one = 1", clock.rawValue, seq)
    }
}
