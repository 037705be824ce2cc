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
}
