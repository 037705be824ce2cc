/// Where a page of a user's favorites, newest first, stops: the last favorite it shows (when
/// it was stored, then its ID). The next page starts after it; a cursor a client forges only
/// moves where a page of its own user's favorites starts.
public struct FavoritesPosition: Sendable, Hashable, CustomStringConvertible {
    /// When the favorite was stored, in milliseconds since 1970.
    public let storedAt: Int64
    /// The favorite's ID.
    public let id: Int

    /// The position of favorite `id` stored at `storedAt`.
    public init(storedAt: Int64, id: Int) {
        self.storedAt = storedAt
        self.id = id
    }

    /// The position written `STORED_AT.ID` (what ``description`` writes), or `nil`.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 19 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
              let storedAt = Int64(parts[0]), let id = Int(parts[1]), id > 0
        else { return nil }
        self.init(storedAt: storedAt, id: id)
    }

    /// `STORED_AT.ID`.
    public var description: String { "\(storedAt).\(id)" }
}
