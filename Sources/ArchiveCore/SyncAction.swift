public import ArchiveStorage

/// Sync with another favorites database or a sync service (`archive sync`).
public enum SyncAction: Sendable, Equatable {
    /// Sync with `peer`, both ways.
    case start(SyncPeer)
    /// The sync finished: what moved each way.
    case finished(SyncPeer, summary: SyncSession.Summary)
    /// The sync failed; what it had not committed is untouched.
    case failed(SyncPeer, message: String)
    /// Read when this database last synced and the changes waiting (``SyncStatus``).
    case refreshStatus
    /// The status read.
    case status(SyncStatus)
}
