public import ArchiveStorage

/// The last sync: whether one runs, what it moved, or why it failed.
public struct SyncState: Sendable, Equatable {
    /// Whether a sync is under way.
    public var isSyncing = false
    /// The database the last sync was with.
    public var peerPath: String?
    /// What the last sync moved, once it finished.
    public var lastSummary: SyncSession.Summary?
    /// Why the last sync failed.
    public var errorMessage: String?

    /// No sync yet.
    public init() {}
}
