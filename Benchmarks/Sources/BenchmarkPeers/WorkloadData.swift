import ArchiveStorage
import ArchiveSyncModel
import CRawSQLitePeer
import Foundation

/// The favorites of a workload of size N, deterministic: IDs 2, 4, ..., 2N
/// (so that any run of consecutive IDs is about half stored), about 200 bytes
/// of text each, newer for higher IDs.
public final class WorkloadData: @unchecked Sendable {
    // @unchecked Sendable: built once in `init` and never mutated afterwards;
    // the C rows point into `bytes`, which lives as long as the object.
    public let count: Int
    public let objects: [StoredArchiveObject]
    private let bytes: UnsafeMutableRawBufferPointer
    public let rawRows: UnsafeMutableBufferPointer<raw_row>

    static let categories = ["和食", "洋食", "中華", "イタリアン", "エスニック", "スイーツ"]
    static let phrases = ["出汁の香る", "炭火で焼いた", "とろけるチーズの", "季節の野菜たっぷりの", "香辛料の効いた", "ふわふわ食感の"]
    public static let epochMilliseconds: Int64 = 1_700_000_000_000
    /// A favorites search matching few rows at every N (IDs 12346, 123460…123468,
    /// 1234600…1234698 where they exist: 1, 6 and 56 rows at 10k, 100k and 1M).
    public static let rareKeyword = "番号 12346"

    public init(count: Int) {
        self.count = count
        objects = (1...max(1, count)).prefix(count).map { Self.object(number: $0) }
        let total = objects.reduce(0) { $0 + $1.photoUrl.utf8.count + $1.category.utf8.count + $1.dishName.utf8.count + $1.shopName.utf8.count + $1.introduction.utf8.count }
        bytes = .allocate(byteCount: max(1, total), alignment: 1)
        rawRows = .allocate(capacity: max(1, count))
        var offset = 0
        func place(_ text: String) -> (UnsafePointer<CChar>, Int32) {
            let start = bytes.baseAddress!.advanced(by: offset)
            let utf8 = Array(text.utf8)
            utf8.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            offset += utf8.count
            return (UnsafePointer(start.assumingMemoryBound(to: CChar.self)), Int32(utf8.count))
        }
        for (index, object) in objects.enumerated() {
            let photo = place(object.photoUrl), category = place(object.category), dish = place(object.dishName)
            let shop = place(object.shopName), introduction = place(object.introduction)
            rawRows[index] = raw_row(
                id: Int64(object.id), photo_url: photo.0, photo_url_len: photo.1, category: category.0,
                category_len: category.1, dish_name: dish.0, dish_name_len: dish.1, shop_name: shop.0,
                shop_name_len: shop.1, introduction: introduction.0, introduction_len: introduction.1,
                stored_at: object.storedAt.millisecondsSince1970)
        }
    }

    deinit {
        bytes.deallocate()
        rawRows.deallocate()
    }

    /// The `number`-th favorite (1-based): ID `2 × number`.
    public static func object(number: Int) -> StoredArchiveObject {
        let id = number * 2
        let phrase = phrases[number % phrases.count]
        return StoredArchiveObject(
            id: id,
            photoUrl: "https://photos.favorite-archive.example/dishes/\(id).jpg",
            category: categories[number % categories.count],
            dishName: "\(phrase)料理 \(id)",
            shopName: "お店 \(number % 997) 号店",
            introduction: "\(phrase)一皿。毎日仕込む自家製のソースと、厳選した食材で作る当店自慢の料理です。番号 \(id)",
            storedAt: Date(millisecondsSince1970: epochMilliseconds + Int64(id)))
    }
}
