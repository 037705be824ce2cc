public import ArchiveAPI

/// What the stored favorites answered to a search the catalog could not answer.
public enum StoredFavoritesAnswer: Sendable, Equatable {
    /// The favorites matching the search's conditions, newest first (at most
    /// ``ArchiveMiddleware/offlineLimit``), and how many match in all when known.
    case found([ArchiveSceneEntity], total: Int?)
    /// They could not be read either: why.
    case failed(String)
}
