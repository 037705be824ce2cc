@testable import ArchiveStorage
import ArchiveSearch
import SQLite
import Testing

/// Which index terms a favorites search intersects: the rare ones, never a term
/// that nearly every favorite contains (which costs a walk through its whole list).
struct SearchTermPlanTests {
    /// 2,000 favorites whose dish names all contain `番号 ` and their number.
    static func numbered() throws -> ArchiveDatabase {
        let database = try ArchiveDatabase.inMemory()
        try database.favorites.create(contentsOf: (1...2_000).map { Fixtures.object($0, dishName: "番号 \($0)") })
        return database
    }

    static func plan(_ keyword: String, in database: ArchiveDatabase) throws -> [String] {
        let terms = try #require(SearchGrams.indexTerms(for: SearchKeyword(keyword)))
        return try database.queue.read { try SearchTermPlan(terms: terms, in: $0).terms }
    }

    @Test func aTermInEveryFavoriteIsLeftOut() throws {
        let database = try Self.numbered()
        let terms = try Self.plan("番号 1234", in: database)
        #expect(!terms.isEmpty && terms.count <= SearchTermPlan.maximumTerms)
        #expect(!terms.contains("\"番号 \""))
        #expect(!terms.contains("\"号 1\"") && !terms.contains("\" 12\""))
        #expect(terms.contains("\"234\""))
        // The plan only narrows what the index is asked; the answer is the scan's.
        #expect(try database.favorites.search(FavoritesQuery(keyword: "番号 1234"), after: nil, limit: 50).page.map(\.id) == [1234])
    }

    @Test func theRarestTermComesFirstEvenWhenEveryTermIsDense() throws {
        let database = try Self.numbered()
        // `番号 ` is in all 2,000, `号 1` in the 1,111 numbers starting with 1.
        #expect(try Self.plan("番号 1", in: database) == ["\"号 1\""])
        #expect(try database.favorites.search(FavoritesQuery(keyword: "番号 1"), after: nil, limit: 50).matchCount == 1_111)
    }

    @Test func aTermWithNoRowsMeansNoCandidates() throws {
        let database = try Self.numbered()
        #expect(try Self.plan("番号 99999x", in: database).isEmpty)
        #expect(try database.favorites.search(FavoritesQuery(keyword: "番号 99999x"), after: nil, limit: 50).page.isEmpty)
        let empty = try ArchiveDatabase.inMemory()
        #expect(try Self.plan("番号 1", in: empty).isEmpty)
    }

    @Test func oneTermIsKeptAsItIs() throws {
        let database = try Self.numbered()
        #expect(try Self.plan("番号", in: database) == ["\"番号\" *"])
    }
}
