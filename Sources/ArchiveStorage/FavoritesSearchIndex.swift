public import SQLite
import ArchiveSearch

/// The favorites search index's tokenizer (`archive_search`, migration 0003):
/// documents are cut into ``SearchGrams``; a query string is taken whole as one
/// gram, because ``SearchGrams/indexTerms(for:)`` has already cut it.
public enum FavoritesSearchIndex {
    /// The tokenizer every connection to an archive database registers before
    /// it migrates, reads or writes favorites. A peer that opens its own
    /// connection registers it with ``SQLite/FTS5Tokenizer/register(onConnection:)``.
    public static let tokenizer = FTS5Tokenizer(name: "archive_search") { text, reason, emit in
        switch reason {
        case .document, .auxiliary:
            SearchGrams.forEachGram(inUTF8: text, emit)
        case .query, .prefixQuery:
            _ = emit(text)
        }
    }

    // MARK: - The statements that keep the index in step

    /// The index's table (migration 0003).
    public static let table = "archive_objects_search"
    /// The size of a bulk insert after which the engine merges the index into one segment.
    public static let optimizeAfter = 10_000
    /// FTS5's command that merges the index into one segment.
    public static let optimizeSQL = "INSERT INTO \(table) (\(table)) VALUES ('optimize')"
    /// FTS5's command that rebuilds the index from the favorites table.
    public static let rebuildSQL = "INSERT INTO \(table) (\(table)) VALUES ('rebuild')"
    /// Indexes a new favorite: its ID and five texts (photo URL, category, dish name,
    /// shop name, introduction) as parameters 1...6, in the transaction that stores it.
    /// A single-row `VALUES` insert, never `INSERT … SELECT` nor a trigger: those open a
    /// statement savepoint, at which this SQLite's FTS5 writes its pending index out,
    /// row after row (about six times slower, measured).
    public static let insertSQL = """
        INSERT INTO \(table) (rowid, photo_url, category, dish_name, shop_name, introduction) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
        """
    /// Takes a favorite out of the index before it is deleted or changed: FTS5's `delete`
    /// command, given the ID and the texts it was indexed with (parameters as ``insertSQL``'s).
    public static let deleteSQL = """
        INSERT INTO \(table) (\(table), rowid, photo_url, category, dish_name, shop_name, introduction)
        VALUES ('delete', ?1, ?2, ?3, ?4, ?5, ?6)
        """

    // MARK: - Reading its totals

    /// How many favorites the search index of `database` holds, from FTS5's own totals.
    ///
    /// Equal to the number of stored favorites when every write kept the index in
    /// step (``ArchiveDatabase/integrityReport(path:)`` compares the two); `nil`
    /// when the database has no search index or its totals cannot be read. For a
    /// program that writes an archive's tables through its own connection (the
    /// benchmark's peers) and must check that it indexed what it stored.
    public static func indexedFavorites(in database: Database) throws -> Int? {
        switch try SearchIndexTotals.read(in: database) {
        case .rows(let rows): rows
        case .noIndex, .unreadable: nil
        }
    }
}
