/// Where the Archive screen's rows came from.
public enum ArchiveSource: Sendable, Equatable {
    /// The catalog answered the search.
    case catalog
    /// The catalog could not answer (`reason` says why), so the rows are the
    /// stored favorites matching the same conditions, newest first: `total` of
    /// them match in all (`nil` when too many to count), the first
    /// ``ArchiveMiddleware/offlineLimit`` are shown.
    case favorites(reason: String, total: Int?)

    /// Whether the rows are the favorites shown because the catalog is unavailable.
    public var isOffline: Bool {
        if case .favorites = self { return true }
        return false
    }
}
