public import ArchiveAPI

/// A row of the Archive screen: a catalog dish and whether it is stored (hearted).
public struct ArchiveCellViewObject: Sendable, Hashable, Identifiable {
    /// The catalog ID.
    public let id: Int
    /// The photo's URL.
    public let photoUrl: String
    /// The category.
    public let category: String
    /// The dish's name.
    public let dishName: String
    /// The shop's name.
    public let shopName: String
    /// The introduction text.
    public let introduction: String
    /// Whether the dish is a stored favorite. Changes only through the store's actions.
    public var isStored: Bool

    /// Creates a row from its fields.
    public init(
        id: Int, photoUrl: String, category: String, dishName: String, shopName: String,
        introduction: String, isStored: Bool
    ) {
        self.id = id
        self.photoUrl = photoUrl
        self.category = category
        self.dishName = dishName
        self.shopName = shopName
        self.introduction = introduction
        self.isStored = isStored
    }

    /// The row of `entity`.
    public init(entity: ArchiveSceneEntity, isStored: Bool) {
        self.init(
            id: entity.id, photoUrl: entity.photoUrl, category: entity.category, dishName: entity.dishName,
            shopName: entity.shopName, introduction: entity.introduction, isStored: isStored)
    }

    /// The catalog entity the row shows.
    public var entity: ArchiveSceneEntity {
        ArchiveSceneEntity(
            id: id, photoUrl: photoUrl, category: category, dishName: dishName, shopName: shopName,
            introduction: introduction)
    }
}
