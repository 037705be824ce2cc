/// One page of a favorites search, and how many favorites match in all when
/// that is known.
public struct FavoritesSearchResult: Sendable, Hashable {
    /// The matching favorites, newest first, with the cursor of the next page.
    public let page: StoredArchivePage
    /// How many favorites match in all; `nil` when a keyword matches so many that
    /// counting them would mean reading them all (the page is still exact).
    public let matchCount: Int?

    /// A result from its parts.
    public init(page: StoredArchivePage, matchCount: Int?) {
        self.page = page
        self.matchCount = matchCount
    }
}
