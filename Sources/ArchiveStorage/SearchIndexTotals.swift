#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SQLite

/// How many favorites the search index holds, read from FTS5's own totals.
///
/// FTS5 keeps, in the row with ID 1 of its `_data` shadow table, the number of
/// rows it has indexed (a SQLite varint, followed by the token totals of each
/// column) and updates it in the transaction of every indexed insert or delete.
/// The engine's writes keep it equal to the number of stored favorites; a
/// favorite another program inserted or deleted (the `sqlite3` shell) makes the
/// two differ. `check` compares them reading only, which FTS5's own
/// `integrity-check` cannot do (it is an `INSERT`).
enum SearchIndexTotals {
    /// The shadow table that holds the index's totals.
    static let dataTable = FavoritesSearchIndex.table + "_data"

    /// What the totals say.
    enum Reading: Equatable {
        /// The database has no search index (its table was dropped).
        case noIndex
        /// The index holds this many rows (0 for an index that never held one,
        /// which has no totals yet).
        case rows(Int)
        /// The totals record is not a blob that starts with a varint.
        case unreadable
    }

    /// Reads the number of rows the index holds.
    static func read(in db: Database) throws -> Reading {
        guard try db.tableExists(dataTable) else { return .noIndex }
        // A value that is not a blob (another program's write) reads as NULL: unreadable.
        let sql = "SELECT CASE WHEN typeof(block) = 'blob' THEN block END FROM \(dataTable) WHERE id = 1"
        guard let block = try db.fetchOne(sql, row: { try $0.column(Data?.self, at: 0) }) else {
            return .rows(0)
        }
        guard let block, let (value, _) = varint(in: block), value <= UInt64(Int.max) else { return .unreadable }
        return .rows(Int(value))
    }

    /// The problem to report when the index and the table disagree, or `nil`.
    static func problem(in db: Database, favorites: Int) throws -> String? {
        switch try read(in: db) {
        case .noIndex:
            return nil
        case .unreadable:
            return "the favorites search index's totals cannot be read: run `archive reindex`"
        case .rows(let rows) where rows != favorites:
            return "the favorites search index holds \(rows) favorite\(rows == 1 ? "" : "s"), the table \(favorites) (another program added or removed favorites, which searches miss or still find): run `archive reindex`"
        case .rows:
            return nil
        }
    }

    /// Decodes the SQLite varint at the start of `bytes`: big-endian groups of 7 bits,
    /// the high bit set on every byte but the last, and a ninth byte of 8 bits.
    /// Returns the value and its length, or `nil` when `bytes` ends first.
    static func varint(in bytes: Data) -> (UInt64, Int)? {
        var value: UInt64 = 0
        for (offset, byte) in bytes.prefix(9).enumerated() {
            if offset == 8 { return ((value << 8) | UInt64(byte), 9) }
            value = (value << 7) | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (value, offset + 1) }
        }
        return nil
    }
}
