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
    /// When this database last finished a sync and the changes waiting, as last read
    /// (`nil`: not read yet, or this store has no database).
    public var status: SyncStatus?

    /// No sync yet.
    public init() {}
}
