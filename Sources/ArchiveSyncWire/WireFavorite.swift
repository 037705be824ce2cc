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

extension WireFavorite: WireJSONDecodable {
    /// A favorite's fields by ``WireJSONReader``'s subset: every one required.
    package static func read(_ reader: inout WireJSONReader) -> WireFavorite? {
        var texts: [String?] = [nil, nil, nil, nil, nil]
        var storedAt: Int64?
        let read = WireJSON.members(&reader, ["photoUrl", "category", "dishName", "shopName", "introduction", "storedAt"]) { reader, key in
            if key == 5 {
                storedAt = reader.integer()
                return storedAt != nil
            }
            texts[key] = reader.string()
            return texts[key] != nil
        }
        guard read, let storedAt, let photoUrl = texts[0], let category = texts[1], let dishName = texts[2], let shopName = texts[3],
              let introduction = texts[4]
        else { return nil }
        return WireFavorite(
            StoredArchiveObject(
                id: 0, photoUrl: photoUrl, category: category, dishName: dishName, shopName: shopName, introduction: introduction,
                storedAtMilliseconds: storedAt))
    }
}
