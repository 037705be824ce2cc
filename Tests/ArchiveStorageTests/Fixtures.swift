import ArchiveStorage
import Foundation
import ArchiveSyncModel

/// Deterministic favorites for tests.
enum Fixtures {
    static let epoch = Date(millisecondsSince1970: 1_700_000_000_000)

    static func object(_ id: Int, storedAt: Date? = nil, dishName: String? = nil) -> StoredArchiveObject {
        StoredArchiveObject(
            id: id,
            photoUrl: "https://example.invalid/photos/\(id).jpg",
            category: ["和食", "洋食", "中華"][abs(id % 3)],
            dishName: dishName ?? "料理 \(id)",
            shopName: "お店 \(id)",
            introduction: "紹介文 \(id): チーズたっぷり",
            storedAt: storedAt ?? epoch.addingTimeInterval(Double(id)))
    }
}
