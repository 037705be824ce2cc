/// The state of the Archive screen: the search conditions, its results and their hearts.
public struct ArchiveState: Sendable, Equatable {
    /// A search is in flight.
    public var isLoading = false
    /// The last search failed (its conditions are kept, so it can be retried).
    public var isError = false
    /// Why the last search failed, when ``isError``.
    public var errorMessage: String?
    /// The keyword condition ("" for none).
    public var inputText = ""
    /// The category condition ("" for all).
    public var selectedCategory = ""
    /// The rows of the last successful search, with `isStored` merged in by the reducer.
    public var archiveCellViewObjects: [ArchiveCellViewObject] = []
    /// Where the rows came from: the catalog, or the favorites while it is unavailable.
    public var source = ArchiveSource.catalog
    /// Whether a search has succeeded at least once (tells "no results" from "not searched").
    public var hasLoaded = false
    /// IDs whose store or unstore is in flight.
    public var pendingStorageIDs: Set<Int> = []
    /// Why the last store or unstore failed; every `isStored` still tells the truth.
    public var storageErrorMessage: String?
    /// The last store or unstore that went through, for fronts to report.
    public var lastStorageChange: StorageChange?
    /// Stores and unstores confirmed while the current search was in flight; the
    /// reducer lays them over that search's stored IDs, which may have been read earlier.
    public var storedChangesDuringSearch: [Int: Bool] = [:]

    /// An idle screen with no conditions and no rows.
    public init() {}

    /// The IDs of the rows shown.
    public var shownIDs: [Int] { archiveCellViewObjects.map(\.id) }
}
