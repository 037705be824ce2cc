/// One dish of the archive catalog, as the API returns it (the original app's entity).
public struct ArchiveSceneEntity: Sendable, Hashable, Codable, Identifiable {
    /// The catalog ID.
    public let id: Int
    /// The photo's URL.
    public let photoUrl: String
    /// The category, such as 洋食.
    public let category: String
    /// The dish's name.
    public let dishName: String
    /// The shop's name.
    public let shopName: String
    /// The introduction text.
    public let introduction: String

    /// Creates an entity from its fields.
    public init(id: Int, photoUrl: String, category: String, dishName: String, shopName: String, introduction: String) {
        self.id = id
        self.photoUrl = photoUrl
        self.category = category
        self.dishName = dishName
        self.shopName = shopName
        self.introduction = introduction
    }

    /// The fields a keyword is searched in: every string field, as json-server's
    /// `q` does (the photo URL, the category, the dish name, the shop name and the
    /// introduction). The one list every search of the catalog goes through.
    public var searchableFields: [String] { [photoUrl, category, dishName, shopName, introduction] }

    /// The catalog's search semantics: an empty (or blank) category or keyword
    /// matches everything; a category must match exactly; a keyword
    /// (``SearchKeyword``) must be contained, ignoring case, in one of the
    /// ``searchableFields``.
    public func matches(keyword: String, category: String) -> Bool {
        SearchText(self).matches(SearchKeyword(keyword), category: category.trimmingWhitespace(), of: self)
    }
}
