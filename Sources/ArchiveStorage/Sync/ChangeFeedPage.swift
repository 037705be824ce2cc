public import ArchiveSyncModel

/// A page of a database's change feed: the changes it made or received after a seq, in
/// the order it recorded them.
public struct ChangeFeedPage: Sendable {
    /// The largest page asked at once.
    public static let maximumLimit = 100_000

    /// The changes, with the seq each has in this database.
    public let changes: [(seq: Int64, change: FavoriteChange)]
    /// The seq to ask the next page after: the last change's, or the one asked when empty.
    public let lastSeq: Int64
    /// Whether more changes follow.
    public let hasMore: Bool
}

/// What applying a batch of received changes did.
public struct ApplySummary: Sendable, Hashable {
    /// Changes that took effect (they won the merge rule).
    public var applied = 0
    /// Changes that lost to a state already held (a greater stamp).
    public var superseded = 0
    /// Changes already held (the same stamp and state).
    public var alreadyHeld = 0
    /// Changes refused as invalid (a stamp out of range, a field breaking the rules),
    /// and the first one's reason.
    public var refused = 0
    /// Why the first refused change was refused.
    public var firstRefusal: String?

    /// An empty summary.
    public init() {}

    /// Adds `other`'s counts to these (its first refusal if there was none yet).
    public mutating func add(_ other: ApplySummary) {
        applied += other.applied
        superseded += other.superseded
        alreadyHeld += other.alreadyHeld
        refused += other.refused
        if firstRefusal == nil { firstRefusal = other.firstRefusal }
    }
}
