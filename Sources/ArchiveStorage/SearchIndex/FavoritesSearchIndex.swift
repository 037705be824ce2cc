public import SQLite
import ArchiveSearch

/// The favorites search index, as other programs that open an archive database
/// see it: its tables (migrations 0004 and 0005) and its check.
///
/// The index is ``SearchRunStore``'s runs of gram keys, kept by the engine's
/// writes. Migration 0003's FTS5 table, which 0004 replaced, still needs the
/// `archive_search` tokenizer while a database migrates through it.
public enum FavoritesSearchIndex {
    /// The tokenizer of migration 0003's FTS5 table: every connection that may
    /// migrate an archive database registers it, because a new database creates
    /// that table (0003) before 0004 drops it, and dropping it loads it.
    /// Documents are cut into ``SearchGrams``; a query string is taken whole.
    public static let tokenizer = FTS5Tokenizer(name: "archive_search") { text, reason, emit in
        switch reason {
        case .document, .auxiliary:
            SearchGrams.forEachGram(inUTF8: text, emit)
        case .query, .prefixQuery:
            _ = emit(text)
        }
    }

    /// The migrations that put every favorite already stored in the waiting list
    /// (0004 made the index, 0005 filed its blocks anew): the open that applies one
    /// builds their runs.
    static let migrationsQueueingFavorites: Set<Int> = [4, 5]

    /// The index's tables: the runs, their blocks, the favorites waiting for a run.
    public static let tables = [SearchRunStore.runsTable, SearchRunStore.blocksTable, SearchRunStore.pendingTable]

    /// What is wrong with the index of `database` against its favorites table
    /// (one line each, as `archive check` prints them), reading only; empty when
    /// the index is sound or was dropped.
    ///
    /// For programs that write an archive's tables through their own connection
    /// (the benchmarks' peers) and must check that they indexed what they stored.
    public static func problems(in database: Database) throws -> [String] {
        try SearchRunStore.problems(in: database)
    }
}
