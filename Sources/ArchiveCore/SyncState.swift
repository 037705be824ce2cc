public import ArchiveStorage

/// The last sync: whether one runs, what it moved, or why it failed.
public struct SyncState: Sendable, Equatable {
    /// Whether a sync is under way.
    public var isSyncing = false
    /// What the last sync was with.
    public var peer: SyncPeer?
    /// What the last sync moved, once it finished.
    public var lastSummary: SyncSession.Summary?
    /// Why the last sync failed.
    public var errorMessage: String?

    /// No sync yet.
    public init() {}
}
