public import ArchiveAPI

/// What can happen on the Archive screen. Names follow the original app's actions.
public enum ArchiveAction: Sendable, Equatable {
    /// Search with this keyword and the current category (`RequestArchiveWithInputTextAction`).
    case requestWithInputText(String)
    /// Search with this category ("" for all) and the current keyword (`RequestArchiveWithSelectedCategoryAction`).
    case requestWithSelectedCategory(String)
    /// Clear both conditions and search everything (`RequestArchiveWithNoConditionsAction`).
    case requestWithNoConditions
    /// Search with both conditions at once (a front that takes them together, such as the CLI).
    case requestWithConditions(inputText: String, selectedCategory: String)
    /// Search again with the current conditions (after a failure).
    case retry
    /// The search's entities and which of them are stored (`SuccessArchiveAction`).
    case success(entities: [ArchiveSceneEntity], storedIDs: Set<Int>)
    /// The search failed (`FailureArchiveAction`).
    case failure(message: String)
    /// The catalog could not answer the search (`reason`); `favorites` is what
    /// the stored favorites answered to the same conditions. The reducer decides
    /// what is shown: those favorites, marked offline, or the failure.
    case catalogFailed(reason: String, favorites: StoredFavoritesAnswer)

    /// Store a row as a favorite (`AddArchiveObjectAction`).
    case addArchiveObject(ArchiveCellViewObject)
    /// Store the catalog dish with this ID, fetching it from the API first.
    case addArchiveObjectWithID(Int)
    /// The dish is now stored (`wasStored` is true when it already was: its fields were refreshed).
    case addArchiveObjectSucceeded(id: Int, wasStored: Bool)
    /// Storing failed; nothing was stored.
    case addArchiveObjectFailed(id: Int, message: String)
    /// Unstore the favorite with this ID (`DeleteArchiveObjectAction`).
    case deleteArchiveObject(id: Int)
    /// The favorite is no longer stored (`wasStored` is false when it already was not).
    case deleteArchiveObjectSucceeded(id: Int, wasStored: Bool)
    /// Unstoring failed; the favorite is still stored.
    case deleteArchiveObjectFailed(id: Int, message: String)

    /// Re-read which shown rows are stored (another process may have changed them).
    case refreshStoredStatus
    /// The stored IDs among `ids`, as just read.
    case storedStatusRefreshed(storedIDs: Set<Int>, among: [Int])
    /// The user saw the storage error.
    case dismissStorageError
}
