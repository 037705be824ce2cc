package import SQLite
package import ArchiveSyncModel

/// What applying a received change needs to know of the favorite it names, read in one
/// primary-key probe without decoding the favorite's texts: the stamp it is held under,
/// whether it is stored or removed, and whether its stored fields equal the change's.
///
/// The merge rule needs the held fields only on a tie of stamps (``FavoriteMerge``'s
/// tie-break), which ``SyncStore/current(id:in:devices:)`` then reads; the write needs
/// only to know whether the texts (the search index's input) and `storedAt` moved.
package struct HeldFavorite: Sendable {
    /// The stamp of the held state.
    package let stamp: ChangeStamp
    /// Stored (a row), or removed (a tombstone).
    package let isStored: Bool
    /// Whether the stored row's five texts are, byte for byte, the incoming change's
    /// (false when the change is a removal or the favorite is not stored).
    package let sameTexts: Bool
    /// Whether the stored row's `storedAt` is the incoming change's, to the millisecond.
    package let sameStoredAt: Bool

    /// The row probe: the stamp, the device's ref, and the comparisons done by SQLite on
    /// the stored bytes (`IS`: byte equality; no `String` is made for them).
    static let rowSQL = """
        SELECT stamp, device,
            photo_url IS ?2 AND category IS ?3 AND dish_name IS ?4 AND shop_name IS ?5 AND introduction IS ?6,
            stored_at IS ?7
        FROM archive_objects WHERE id = ?1
        """
    static let tombstoneSQL = "SELECT stamp, device FROM archive_tombstones WHERE id = ?"

    /// What `db` holds for the favorite `change` names, or `nil` when it holds nothing.
    /// `devices` maps the refs stored in rows to device IDs.
    package static func read(for change: FavoriteChange, in db: Database, devices: [Int64: DeviceID]) throws -> HeldFavorite? {
        let row = try db.cachedStatement(rowSQL)
        defer { row.reset() }
        try row.bind(change.id, at: 1)
        if case .stored(let object) = change.state {
            try SQLiteStoredArchiveDataRepository.bind(object, to: row)
        } else {
            for parameter in Int32(2)...7 { try row.bind(String?.none, at: parameter) }  // the flags go unread
        }
        if try row.step() {
            return HeldFavorite(
                stamp: try stamp(row, devices, db), isStored: true,
                sameTexts: try row.int64(at: 2) != 0, sameStoredAt: try row.int64(at: 3) != 0)
        }
        let tombstone = try db.cachedStatement(tombstoneSQL)
        defer { tombstone.reset() }
        try tombstone.bind(change.id, at: 1)
        guard try tombstone.step() else { return nil }
        return HeldFavorite(stamp: try stamp(tombstone, devices, db), isStored: false, sameTexts: false, sameStoredAt: false)
    }

    private static func stamp(_ statement: Statement, _ devices: [Int64: DeviceID], _ db: Database) throws -> ChangeStamp {
        guard let device = devices[try statement.int64(at: 1)] else { throw SyncError.stateMissing(path: db.path) }
        return ChangeStamp(time: HybridTimestamp(rawValue: try statement.int64(at: 0)), device: device)
    }
}
