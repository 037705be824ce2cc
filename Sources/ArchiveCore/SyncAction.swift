public import ArchiveStorage

/// Sync with another favorites database (`archive sync PATH`).
public enum SyncAction: Sendable, Equatable {
    /// Sync with the database at `path`, both ways.
    case start(path: String)
    /// The sync finished: what moved each way.
    case finished(path: String, summary: SyncSession.Summary)
    /// The sync failed; neither database took a half of it.
    case failed(path: String, message: String)
}
