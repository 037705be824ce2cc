public import ArchiveSearch
public import ArchiveSyncModel

/// What a favorites search looks for: the catalog's search semantics over the
/// stored favorites.
///
/// A favorite matches when its category equals ``category`` (unless that is
/// empty) and ``keyword`` is contained, ignoring case, in one of its text
/// fields (photo URL, category, dish name, shop name, introduction): json-server's
/// `q`, as ``SearchKeyword`` defines it. An empty query matches every favorite.
public struct FavoritesQuery: Sendable, Hashable {
    /// The keyword (trimmed; empty for none).
    public let keyword: SearchKeyword
    /// The category, trimmed ("" for all).
    public let category: String

    /// A query for `keyword` in `category` (both trimmed of surrounding whitespace).
    public init(keyword: String = "", category: String = "") {
        self.keyword = SearchKeyword(keyword)
        self.category = category.trimmingWhitespace()
    }

    /// Whether the query matches every favorite.
    public var isEmpty: Bool { keyword.isEmpty && category.isEmpty }

    /// Whether `object` matches: the definition the index is tested against.
    public func matches(_ object: StoredArchiveObject) -> Bool {
        if !category.isEmpty, object.category != category { return false }
        return keyword.isEmpty
            || [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction].contains(where: keyword.matches)
    }
}
