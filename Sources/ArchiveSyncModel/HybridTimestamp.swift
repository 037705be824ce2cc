/// A hybrid logical clock's reading: wall-clock milliseconds since 1970 in the high bits,
/// a counter in the low 16, so that one integer orders every change a database made or
/// received ([Kulkarni et al., 2014](https://cse.buffalo.edu/tech-reports/2014-04.pdf)).
///
/// A new local stamp is greater than every stamp the database has made or received
/// (``next(after:wallClock:)``): a device whose wall clock is behind still stamps a
/// change after every change it has seen.
public struct HybridTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The stored integer: `milliseconds << 16 | counter`.
    public let rawValue: Int64

    /// The bits of the counter.
    public static let counterBits = 16
    /// The largest milliseconds a valid stamp carries: 2^46 − 1 (the year 4199), so that
    /// clocks can still move forward from the greatest valid stamp for two thousand years.
    /// A stamp beyond it is refused by every device alike (``isValid``), whatever its own
    /// clock says, so that convergence never depends on which device noticed.
    public static let maximumMilliseconds: Int64 = (1 << 46) - 1

    /// The stamp stored as `rawValue`.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// The stamp of `milliseconds` and `counter`.
    public init(milliseconds: Int64, counter: Int64 = 0) {
        rawValue = milliseconds << Self.counterBits | (counter & 0xFFFF)
    }

    /// The wall-clock part.
    public var milliseconds: Int64 { rawValue >> Self.counterBits }
    /// The counter part.
    public var counter: Int64 { rawValue & 0xFFFF }

    /// The greatest valid stamp: ``maximumMilliseconds`` with its counter full.
    public static let maximum = HybridTimestamp(milliseconds: maximumMilliseconds, counter: 0xFFFF)

    /// Whether the stamp can be stored and sent: not negative, not past ``maximumMilliseconds``.
    public var isValid: Bool { rawValue >= 0 && milliseconds <= Self.maximumMilliseconds }

    /// How far ahead of a receiver's wall clock a received stamp may be: one day
    /// (86,400,000 ms). A database syncing with a file, and the sync service taking a push,
    /// refuse a change stamped further ahead (``lead(over:)``), naming its device: one
    /// broken or hostile clock cannot drag every other device's clock into the future,
    /// where its stamps, not the order in which people acted, would decide between later
    /// edits (docs/SYNC.md, "Clocks ahead").
    public static let maximumLead: Int64 = 86_400_000

    /// How many milliseconds this stamp is ahead of `wallClock` (Unix milliseconds);
    /// negative when behind. A receiver refuses the change when it is over ``maximumLead``.
    public func lead(over wallClock: Int64) -> Int64 {
        milliseconds &- wallClock
    }

    /// A lead in milliseconds in words a person reads at a glance: "64 years", "5 hours",
    /// "3 minutes", "40 seconds".
    public static func describe(lead milliseconds: Int64) -> String {
        let seconds = max(milliseconds, 0) / 1_000
        let units: [(Int64, String)] = [(365 * 86_400, "year"), (86_400, "day"), (3_600, "hour"), (60, "minute")]
        for (size, name) in units where seconds >= size {
            let count = seconds / size
            return "\(count) \(name)\(count == 1 ? "" : "s")"
        }
        return "\(seconds) second\(seconds == 1 ? "" : "s")"
    }

    /// The stamp for a new local change: after `clock` (the greatest stamp made or received
    /// so far), at `wallClock` milliseconds when the wall clock is ahead of it.
    public static func next(after clock: HybridTimestamp, wallClock: Int64) -> HybridTimestamp {
        let physical = min(max(wallClock, 0), maximumMilliseconds)
        if physical > clock.milliseconds { return HybridTimestamp(milliseconds: physical) }
        // The wall clock is behind (or equal): count on from the clock; a full counter
        // moves the clock one millisecond on.
        if clock.counter < 0xFFFF { return HybridTimestamp(rawValue: clock.rawValue + 1) }
        // At the last valid stamp stamps stop moving (they stay valid, and ties are broken
        // by device and content). No received change can bring a clock there (none is taken
        // more than ``maximumLead`` ahead of the receiver's wall clock): only a wall clock
        // set to the year 4199.
        guard clock.milliseconds < maximumMilliseconds else { return clock }
        return HybridTimestamp(milliseconds: clock.milliseconds + 1)
    }

    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `milliseconds.counter`.
    public var description: String { "\(milliseconds).\(counter)" }
}
