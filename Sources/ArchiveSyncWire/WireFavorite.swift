public import ArchiveSyncModel

/// A stored favorite's fields on the wire (`storedAt` in milliseconds since 1970, so that
/// it travels exactly; the ID is the change's).
public struct WireFavorite: Codable, Sendable, Hashable {
    /// The dish's photo URL.
    public var photoUrl: String
    /// The dish's category.
    public var category: String
    /// The dish's name.
    public var dishName: String
    /// The shop's name.
    public var shopName: String
    /// The dish's introduction.
    public var introduction: String
    /// When it was first stored, in milliseconds since 1970.
    public var storedAt: Int64

    /// The fields of `object`.
    public init(_ object: StoredArchiveObject) {
        photoUrl = object.photoUrl
        category = object.category
        dishName = object.dishName
        shopName = object.shopName
        introduction = object.introduction
        storedAt = object.storedAtMilliseconds
    }

    /// The favorite with ID `id` and these fields.
    public func object(id: Int) -> StoredArchiveObject {
        StoredArchiveObject(
            id: id, photoUrl: photoUrl, category: category, dishName: dishName, shopName: shopName,
            introduction: introduction, storedAtMilliseconds: storedAt)
    }
}
