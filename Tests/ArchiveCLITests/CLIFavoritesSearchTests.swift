import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing

/// `archive favorites --search/--category` on the real binary, on a file imported
/// with favorites whose texts are Japanese, Latin, mixed case and hostile.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLIFavoritesSearchTests {
    let cli: CLI

    static let records: [(id: Int, category: String, dish: String, shop: String)] = [
        (1, "和食", "ざる蕎麦", "手打ち蕎麦 やまぶき"),
        (2, "和食", "寿司おまかせ", "鮨 しおさい"),
        (3, "洋食", "チーズハンバーグ", "Kitchen MAPLE"),
        (4, "洋食", "Crème Brûlée", "Café «Ü»"),
        (5, "中華", "麻婆豆腐", "it's \u{1B}[31mred"),
        (6, "和食", "天ぷら蕎麦", "蕎麦処 寿"),
    ]

    init() throws {
        cli = try CLI()
        var json = "["
        for (index, record) in Self.records.enumerated() {
            let object: [String: Any] = [
                "id": record.id, "photoUrl": "https://example.invalid/\(record.id).jpg", "category": record.category,
                "dishName": record.dish, "shopName": record.shop, "introduction": "紹介 \(record.id)",
                "storedAt": "2026-01-0\(index + 1)T00:00:00.000Z",
            ]
            let data = try JSONSerialization.data(withJSONObject: object)
            json += (index == 0 ? "" : ",") + String(decoding: data, as: UTF8.self)
        }
        let file = cli.directory.path("favorites.json")
        try Data((json + "]").utf8).write(to: URL(fileURLWithPath: file))
        let imported = try cli.run(["import", file])
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    func ids(_ arguments: [String]) throws -> [Int]? {
        let result = try cli.run(["favorites", "--json"] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        let object = try result.json() as? [String: Any]
        return (object?["favorites"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
    }

    @Test func oneTwoAndLongerKeywordsInAnyCaseWithACategory() throws {
        #expect(try ids(["--search", "蕎"]) == [6, 1])
        #expect(try ids(["--search", "寿司"]) == [2])
        #expect(try ids(["--search", "寿"]) == [6, 2])
        #expect(try ids(["--search", "CRÈME brûlée"]) == [4])
        #expect(try ids(["--search", "maple"]) == [3])
        #expect(try ids(["--search", "蕎", "--category", "和食"]) == [6, 1])
        #expect(try ids(["--search", "蕎", "--category", "洋食"]) == [])
        #expect(try ids(["--category", "洋食"]) == [4, 3])
        #expect(try ids(["--search", "  ", "--category", ""]) == [6, 5, 4, 3, 2, 1])
        #expect(try ids(["--search", "EXAMPLE.INVALID/5"]) == [5])
        let counted = try #require(try cli.run(["favorites", "--json", "--search", "蕎"]).json() as? [String: Any])
        #expect(counted["total"] as? Int == 2)
    }

    @Test func pagesFollowTheCursorAndTheHintRepeatsTheConditionsQuoted() throws {
        let first = try cli.run(["favorites", "--search", "'s", "--limit", "1"])
        #expect(first.status == 0)
        #expect(first.stdout.hasPrefix("♥    5"))
        // The keyword's escape never reaches the terminal; the hint can be pasted into a shell.
        #expect(!first.stdout.contains("\u{1B}") && !first.stderr.contains("\u{1B}"))
        let page = try cli.run(["favorites", "--search", "蕎", "--limit", "1"])
        // The hint keeps the page's size (before: it dropped --limit, so the next page was 20).
        #expect(page.stderr.contains("1 of 2 matching favorites; next page: archive favorites --search '蕎' --limit 1 --after="), "\(page.stderr)")
        let cursor = try #require(page.stdout.split(separator: "\n").last?.dropFirst("next: ".count))
        #expect(try ids(["--search", "蕎", "--limit", "1", "--after", String(cursor)]) == [1])
        let quoted = try cli.run(["favorites", "--search", "it's", "--limit", "1", "--category", "中華"])
        #expect(quoted.stdout.hasPrefix("♥    5"))
        #expect(!quoted.stderr.contains("next page"))
    }

    @Test func badOptionsAreRefusedAndNothingIsCreated() throws {
        let fresh = try CLI()
        let result = try fresh.run(["favorites", "--search", "蕎", "--limit", "0"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--limit must be between 1 and"))
        let missing = try fresh.run(["favorites", "--search"])
        #expect(missing.status == 64)
        #expect(!FileManager.default.fileExists(atPath: fresh.database))
    }

    /// Another program (here as the sqlite3 shell would: rows only, no tokenizer)
    /// inserts and changes favorites: the index does not see them until `reindex`,
    /// and `check` says so (it finds the stored favorites the index does not cover).
    @Test func favoritesWrittenByAnotherProgramAreFoundAfterReindex() throws {
        // The six imported favorites wait for a run (fewer than 64), and waiting ones
        // are read as they stand; `reindex` makes them a run, whose texts are the old ones.
        #expect(try cli.run(["reindex"]).status == 0)
        try DatabaseQueue(path: cli.database).write { db in
            try db.execute("INSERT INTO archive_objects (id, photo_url, category, dish_name, shop_name, introduction, stored_at) VALUES (7, 'u', '和食', '鴨南蛮蕎麦', '店', '紹介', 1767571200000)")
            try db.execute("UPDATE archive_objects SET dish_name = '月見うどん' WHERE id = 1")
        }
        #expect(try ids(["--search", "鴨南蛮"]) == [])
        #expect(try ids(["--search", "月見"]) == [])
        let check = try cli.run(["check"])
        #expect(check.status == 1, "\(check.stdout)")
        #expect(check.stdout.contains("the favorites search index misses 1 stored favorite (7;"), "\(check.stdout)")
        #expect(check.stdout.contains("run `archive reindex`"), "\(check.stdout)")
        let reindex = try cli.run(["reindex", "--json"])
        #expect(reindex.status == 0, "\(reindex.stderr)")
        let report = try #require(try reindex.json() as? [String: Any])
        #expect(report["favorites"] as? Int == 7)
        #expect(report["database"] as? String == cli.database)
        #expect(try ids(["--search", "鴨南蛮"]) == [7])
        #expect(try ids(["--search", "月見"]) == [1])
        #expect(try ids(["--search", "ざる"]) == [])
        #expect(try ids(["--search", "蕎麦"]) == [6, 7, 1])
        let again = try cli.run(["reindex"])
        #expect(again.status == 0 && again.stdout == "rebuilt the search index: 7 favorites\n", "\(again.stdout)")
        let checked = try cli.run(["check"])
        #expect(checked.status == 0 && checked.stdout.hasPrefix("ok\n"), "\(checked.stdout)")
    }

    /// The index damaged by another program: the real binary never crashes,
    /// `check` names the damage with `reindex`, and `reindex` repairs it. Blocks
    /// that do not decode (cut short, text in their place) leave searches
    /// answering what the favorites hold (they walk); a run renumbered (outside
    /// the numbers a block can be filed under, or at the last one) leaves its
    /// blocks to no run, which only `check` sees.
    @Test(arguments: [
        ("UPDATE archive_search_blocks SET block = substr(block, 1, 3)", true),
        ("UPDATE archive_search_blocks SET block = 'not a block'", true),
        ("UPDATE archive_search_runs SET members = x'ffffffffffffffffffffff'", true),
        ("UPDATE archive_search_runs SET run = 4294967296", false),
        ("UPDATE archive_search_runs SET run = 2147483647", false),
    ])
    func aDamagedIndexIsReportedAndRepaired(damage: String, searchesAnswer: Bool) throws {
        #expect(try cli.run(["reindex"]).status == 0)  // a run to damage (six favorites would wait)
        try DatabaseQueue(path: cli.database).write { db in try db.execute(damage) }
        if searchesAnswer {
            #expect(try ids(["--search", "蕎麦"]) == [6, 1])
            #expect(try ids(["--search", "寿"]) == [6, 2])
            #expect(try ids(["--search", "brûlée"]) == [4])
        }
        let check = try cli.run(["check"])
        #expect(check.status == 1 && check.stdout.contains("archive reindex"), "\(check.stdout)")
        if damage.hasSuffix("2147483647") {
            // The last run number taken: an import that would write a run is refused whole.
            var text = "["
            for id in 1...100 {
                text += (id > 1 ? "," : "") + #"{"id":\#(id + 100),"photoUrl":"https://p/\#(id).jpg","category":"和食","dishName":"料理\#(id)","shopName":"店","introduction":"紹介","storedAt":"2026-01-01T00:00:00.000Z"}"#
            }
            let file = cli.directory.path("more.json")
            try (text + "]").write(toFile: file, atomically: false, encoding: .utf8)
            let refused = try cli.run(["import", file])
            #expect(refused.status == 1 && refused.stderr.contains("numbered its runs up to 2147483647") && refused.stderr.contains("archive reindex"), "\(refused.stderr)")
            #expect(try ids([])?.count == Self.records.count)
        }
        let reindex = try cli.run(["reindex"])
        #expect(reindex.status == 0, "\(reindex.stderr)")
        #expect(try cli.run(["check"]).status == 0)
        #expect(try ids(["--search", "蕎麦"]) == [6, 1])
        #expect(try ids(["--search", "brûlée"]) == [4])
    }

    @Test func reindexRefusesAMissingDatabaseAndADroppedIndex() throws {
        let fresh = try CLI()
        let missing = try fresh.run(["reindex"])
        #expect(missing.status == 1 && missing.stderr.contains("no database at"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fresh.database))
        try DatabaseQueue(path: cli.database).write { db in
            for table in FavoritesSearchIndex.tables { try db.execute("DROP TABLE \(table)") }
        }
        let dropped = try cli.run(["reindex"])
        #expect(dropped.status == 1 && dropped.stderr.contains("no favorites search index"), "\(dropped.stderr)")
        #expect(try ids(["--search", "蕎麦"]) == [6, 1])
    }
}
