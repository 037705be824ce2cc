public import ArchiveSyncModel

/// The one mapping between a catalog dish and a favorite: the same six fields, the favorite
/// adding when it was stored. Every side that hearts a dish (the store's middleware, the
/// web page) or shows a favorite as a dish (the offline search) goes through it.
extension ArchiveSceneEntity {
    /// The dish a favorite holds.
    public init(_ favorite: StoredArchiveObject) {
        self.init(
            id: favorite.id, photoUrl: favorite.photoUrl, category: favorite.category, dishName: favorite.dishName,
            shopName: favorite.shopName, introduction: favorite.introduction)
    }

    /// This dish as a favorite stored `storedAtMilliseconds` after 1970.
    public func favorite(storedAtMilliseconds: Int64) -> StoredArchiveObject {
        StoredArchiveObject(
            id: id, photoUrl: photoUrl, category: category, dishName: dishName, shopName: shopName,
            introduction: introduction, storedAtMilliseconds: storedAtMilliseconds)
    }
}
