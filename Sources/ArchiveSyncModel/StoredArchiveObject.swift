#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A favorite: an archive item the user hearted, as it is stored and synced.
///
/// The original app's Realm object, with the same fields plus the time it was stored,
/// kept to the millisecond as the databases and the wire keep it. The sync core's one
/// value of a favorite: the engine, the wire and both of the service's backends use it
/// (the engine adds `storedAt` as a `Date`).
public struct StoredArchiveObject: Sendable, Hashable {
    /// The catalog ID of the item (positive).
    public var id: Int
    /// The photo's URL.
    public var photoUrl: String
    /// The category, such as 洋食.
    public var category: String
    /// The dish's name (not blank).
    public var dishName: String
    /// The shop's name.
    public var shopName: String
    /// The introduction text.
    public var introduction: String
    /// When the item was stored, in milliseconds since 1970.
    public var storedAtMilliseconds: Int64

    /// An object with these fields, stored `storedAtMilliseconds` after 1970.
    public init(
        id: Int, photoUrl: String, category: String, dishName: String, shopName: String,
        introduction: String, storedAtMilliseconds: Int64
    ) {
        self.id = id
        self.photoUrl = photoUrl
        self.category = category
        self.dishName = dishName
        self.shopName = shopName
        self.introduction = introduction
        self.storedAtMilliseconds = storedAtMilliseconds
    }

    // MARK: - Validation

    /// The longest text, in UTF-8 bytes, each field may hold.
    public enum Limits {
        /// `photoUrl`: 2,048 bytes.
        public static let photoUrl = 2_048
        /// `category`: 200 bytes.
        public static let category = 200
        /// `dishName`: 500 bytes.
        public static let dishName = 500
        /// `shopName`: 500 bytes.
        public static let shopName = 500
        /// `introduction`: 10,000 bytes.
        public static let introduction = 10_000
    }

    /// The stored times, in milliseconds since 1970, that the export format writes and
    /// reads back exactly: 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z.
    public static let storedAtRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// Checks the rules every favorite follows, wherever it comes from (an import, a local
    /// write, a device's push, another database's change): a positive `id`, a dish name
    /// that is not blank, every text within ``Limits`` and free of NUL characters, and the
    /// stored time within ``storedAtRange``. Throws the first rule broken.
    public func check() throws(FavoriteRefusal) {
        func invalid(_ field: String, _ reason: String) -> FavoriteRefusal {
            FavoriteRefusal(id: id, field: field, reason: reason)
        }
        guard id > 0 else { throw invalid("id", "must be a positive integer, got \(id)") }
        try checkText("photoUrl", photoUrl, limit: Limits.photoUrl)
        try checkText("category", category, limit: Limits.category)
        try checkText("dishName", dishName, limit: Limits.dishName)
        try checkText("shopName", shopName, limit: Limits.shopName)
        try checkText("introduction", introduction, limit: Limits.introduction)
        if Self.isBlank(dishName) {
            throw invalid("dishName", "must not be empty")
        }
        guard Self.storedAtRange.contains(storedAtMilliseconds) else {
            throw invalid("storedAt", "is \(storedAtMilliseconds) ms since 1970, outside the years 0001 to 9999")
        }
    }

    /// Whether `text` has nothing but whitespace, without grapheme breaking or
    /// Unicode's property tables for the common cases: a first scalar that is
    /// printable ASCII, or in U+3040–U+9FFF (kana and CJK, led by `E3 81` to
    /// `E9`), is no whitespace. The ideographic space, U+3000 (`E3 80 80`), is.
    private static func isBlank(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        if let first = bytes.next() {
            if first > 0x20, first < 0x7F { return false }
            if first >= 0xE4, first <= 0xE9 { return false }
            if first == 0xE3, let second = bytes.next(), second > 0x80 { return false }
        }
        return text.unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }

    private func checkText(_ field: String, _ value: String, limit: Int) throws(FavoriteRefusal) {
        let utf8 = value.utf8
        if utf8.count > limit {
            throw FavoriteRefusal(id: id, field: field, reason: "is \(utf8.count) bytes long; the limit is \(limit) bytes")
        }
        let hasNUL = utf8.withContiguousStorageIfAvailable { bytes in
            // memchr is vectorized: this check runs for every field of every imported row.
            bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false
        } ?? utf8.contains(0)
        if hasNUL {
            throw FavoriteRefusal(id: id, field: field, reason: "contains a NUL character")
        }
    }
}
