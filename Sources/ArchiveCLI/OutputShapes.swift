import ArchiveAPI
import ArchiveCore
import ArchiveStorage

/// The documented `--json` shapes (see README). Keys are sorted on output.
enum OutputShapes {
    /// `archive search --json`.
    struct Search: Encodable {
        let keyword: String
        let category: String
        let count: Int
        let results: [Row]
    }

    /// A dish's fields (those of `ArchiveSceneEntity`) plus one more key.
    struct Dish<Extra: Encodable>: Encodable {
        let entity: ArchiveSceneEntity
        let extraKey: String
        let extra: Extra

        func encode(to encoder: any Encoder) throws {
            try entity.encode(to: encoder)
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(extra, forKey: AnyKey(stringValue: extraKey))
        }
    }

    /// One search result: the dish and `isStored`.
    typealias Row = Dish<Bool>

    /// One stored favorite (the export format's record): the dish and `storedAt`.
    typealias Favorite = Dish<String>

    static func row(_ cell: ArchiveCellViewObject) -> Row {
        Dish(entity: cell.entity, extraKey: "isStored", extra: cell.isStored)
    }

    static func favorite(_ object: StoredArchiveObject) -> Favorite {
        let entity = ArchiveSceneEntity(
            id: object.id, photoUrl: object.photoUrl, category: object.category, dishName: object.dishName,
            shopName: object.shopName, introduction: object.introduction)
        return Dish(entity: entity, extraKey: "storedAt", extra: object.storedAt.iso8601Milliseconds)
    }

    /// `archive favorites --json`.
    struct Favorites: Encodable {
        let total: Int
        let favorites: [Favorite]
        let nextCursor: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(total, forKey: AnyKey(stringValue: "total"))
            try container.encode(favorites, forKey: AnyKey(stringValue: "favorites"))
            // null on the last page, never omitted.
            try container.encode(nextCursor, forKey: AnyKey(stringValue: "nextCursor"))
        }
    }

    /// `archive add --json` and `archive remove --json`.
    struct StorageChange: Encodable {
        let id: Int
        let isStored: Bool
        let changed: Bool
    }

    /// A coding key made from any string.
    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
