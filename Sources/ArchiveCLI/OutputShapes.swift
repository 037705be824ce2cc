import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux

/// The documented `--json` shapes (see README). Keys are sorted on output.
enum OutputShapes {
    /// `archive search --json`.
    struct Search: Encodable {
        let keyword: String
        let category: String
        let count: Int
        let results: [Row]
    }

    /// One search result.
    struct Row: Encodable {
        let id: Int
        let photoUrl: String
        let category: String
        let dishName: String
        let shopName: String
        let introduction: String
        let isStored: Bool

        init(_ cell: ArchiveCellViewObject) {
            id = cell.id
            photoUrl = cell.photoUrl
            category = cell.category
            dishName = cell.dishName
            shopName = cell.shopName
            introduction = cell.introduction
            isStored = cell.isStored
        }
    }

    /// One stored favorite (the export format's record).
    struct Favorite: Encodable {
        let id: Int
        let photoUrl: String
        let category: String
        let dishName: String
        let shopName: String
        let introduction: String
        let storedAt: String

        init(_ object: StoredArchiveObject) {
            id = object.id
            photoUrl = object.photoUrl
            category = object.category
            dishName = object.dishName
            shopName = object.shopName
            introduction = object.introduction
            storedAt = object.storedAt.iso8601Milliseconds
        }
    }

    /// `archive favorites --json`.
    struct Favorites: Encodable {
        let total: Int
        let favorites: [Favorite]
        let nextCursor: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(total, forKey: .total)
            try container.encode(favorites, forKey: .favorites)
            try container.encode(nextCursor, forKey: .nextCursor)  // null on the last page, never omitted
        }

        enum CodingKeys: String, CodingKey { case total, favorites, nextCursor }
    }

    /// `archive add --json` and `archive remove --json`.
    struct StorageChange: Encodable {
        let id: Int
        let isStored: Bool
        let changed: Bool
    }
}
