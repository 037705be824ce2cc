import ArchiveSearch
import SQLite

// MARK: - Favorites search

extension SQLiteStoredArchiveDataRepository {
    /// The most index candidates a search reads one by one; a keyword with more
    /// (one that most favorites contain) walks the favorites newest first instead,
    /// where matches are dense and a page fills quickly.
    static let candidateLimit = 10_000

    static let byIDSQL = "SELECT \(columns) FROM archive_objects WHERE id = ?"

    /// Newest first, optionally after a cursor (parameters 1, 2) and in a category (parameter 3, or 1).
    static func walkSQL(after cursor: Bool, inCategory category: Bool) -> String {
        var conditions: [String] = []
        if cursor { conditions.append("(stored_at, id) < (?, ?)") }
        if category { conditions.append("category = ?") }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return "SELECT \(columns) FROM archive_objects\(filter) ORDER BY stored_at DESC, id DESC"
    }

    public func search(_ query: FavoritesQuery, after cursor: StoredArchivePageCursor?, limit: Int) throws -> FavoritesSearchResult {
        guard (1...StoredArchivePage.maximumLimit).contains(limit) else {
            throw ArchiveStorageError.invalidPageLimit(limit)
        }
        if query.isEmpty {
            return try snapshot { FavoritesSearchResult(page: try page(after: cursor, limit: limit), matchCount: try count()) }
        }
        return try queue.snapshot { db in
            if hasSearchIndex, let lookups = SearchGramKey.lookups(for: query.keyword) {
                // A damaged index cannot narrow the search: the walk still answers
                // (`check` reports the damage, `reindex` repairs it).
                var candidates: [Int]?
                do {
                    candidates = try SearchRunStore.candidates(for: lookups, limit: Self.candidateLimit, in: db)
                } catch is SearchRunError {
                    candidates = nil
                } catch let error as SQLiteError where error.resultCode == .mismatch {
                    candidates = nil  // a block or key of the wrong type: damaged as well
                }
                if let candidates {
                    return try Self.search(candidates: candidates, query, after: cursor, limit: limit, in: db)
                }
            }
            return try Self.walk(query, after: cursor, limit: limit, in: db)
        }
    }

    /// Reads each candidate, keeps those that match, sorts them newest first.
    private static func search(
        candidates: [Int], _ query: FavoritesQuery, after cursor: StoredArchivePageCursor?, limit: Int, in db: Database
    ) throws -> FavoritesSearchResult {
        let statement = try db.cachedStatement(byIDSQL)
        var matches: [(storedAt: Int64, id: Int)] = []
        var total = 0
        for id in candidates {
            try statement.bind(id, at: 1)
            defer { statement.reset() }
            // A row the index still names but that is gone (removed by another
            // program, which does not keep the index) is skipped, not trusted.
            guard try statement.step(), rowMatches(statement, query) else { continue }
            total += 1
            let storedAt = try statement.int64(at: Column.storedAt.index)
            if let cursor, (storedAt, id) >= (cursor.storedAtMilliseconds, cursor.id) { continue }
            matches.append((storedAt, id))
        }
        matches.sort { ($0.storedAt, $0.id) > ($1.storedAt, $1.id) }
        var builder = StoredArchivePage.Builder(capacity: min(matches.count, limit + 1))
        for match in matches.prefix(limit + 1) {
            try statement.bind(match.id, at: 1)
            defer { statement.reset() }
            guard try statement.step() else { continue }
            try appendRow(from: statement, to: &builder)
        }
        return FavoritesSearchResult(page: builder.page(limit: limit), matchCount: total)
    }

    /// Walks the favorites newest first, keeping those that match, until the page is full.
    private static func walk(
        _ query: FavoritesQuery, after cursor: StoredArchivePageCursor?, limit: Int, in db: Database
    ) throws -> FavoritesSearchResult {
        let statement = try db.cachedStatement(walkSQL(after: cursor != nil, inCategory: !query.category.isEmpty))
        defer { statement.reset() }
        var parameter: Int32 = 1
        if let cursor {
            try statement.bind(cursor.storedAtMilliseconds, at: 1)
            try statement.bind(cursor.id, at: 2)
            parameter = 3
        }
        if !query.category.isEmpty { try statement.bind(query.category, at: parameter) }
        var builder = StoredArchivePage.Builder(capacity: limit + 1)
        var kept = 0
        while kept <= limit, try statement.step() {
            guard rowMatches(statement, query) else { continue }
            try appendRow(from: statement, to: &builder)
            kept += 1
        }
        var matchCount: Int?
        if query.keyword.isEmpty {
            matchCount = try db.fetchOne("SELECT count(*) FROM archive_objects WHERE category = ?", query.category) {
                try $0.column(Int.self, at: 0)
            }
        }
        return FavoritesSearchResult(page: builder.page(limit: limit), matchCount: matchCount)
    }

    /// Whether the current row of a ``columns`` query matches `query`, read from its bytes.
    private static func rowMatches(_ row: Statement, _ query: FavoritesQuery) -> Bool {
        if !query.category.isEmpty {
            let sameCategory = row.withConvertedText(at: Column.category.index) { $0.elementsEqual(query.category.utf8) }
            guard sameCategory else { return false }
        }
        guard !query.keyword.isEmpty else { return true }
        for column in textColumns {
            if row.withConvertedText(at: column, { query.keyword.matches(utf8: UnsafeRawBufferPointer($0)) }) { return true }
        }
        return false
    }
}
