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
