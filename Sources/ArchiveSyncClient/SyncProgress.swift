/// How far a sync with a service has come (``ServerSyncSession``): what a front shows while
/// a sync moves many changes.
public struct SyncProgress: Sendable, Hashable {
    /// Which half of the sync.
    public enum Phase: Sendable, Hashable {
        /// Pulling the user's feed.
        case receiving
        /// Pushing this device's own changes.
        case sending
    }

    /// The half of the sync under way.
    public var phase: Phase
    /// How far along it is: feed positions pulled, or own changes pushed.
    public var done: Int64
    /// How far it goes (the feed's end when the sync began, or this device's own changes to send).
    public var total: Int64

    /// Progress of `phase`: `done` of `total`.
    public init(phase: Phase, done: Int64, total: Int64) {
        self.phase = phase
        self.done = done
        self.total = total
    }

    /// `done` over `total`, from 0 to 1 (1 when there is nothing to do).
    public var fraction: Double {
        total <= 0 ? 1 : min(1, max(0, Double(done) / Double(total)))
    }
}
