import ArchiveAPI
import Testing

/// json-server's query conventions as `serve` applies them (``CatalogQuery``),
/// and the query-string coding both ends of the HTTP catalog share.
@Suite(.timeLimit(.minutes(5)))
struct CatalogQueryTests {
    static let catalog = BundledArchiveRepository(entities: [
        ArchiveSceneEntity(id: 3, photoUrl: "https://p/Cheese.JPG", category: "洋食", dishName: "Omelette", shopName: "Grill A", introduction: "卵"),
        ArchiveSceneEntity(id: 1, photoUrl: "https://p/1.jpg", category: "和食", dishName: "蕎麦", shopName: "やまぶき", introduction: "二八蕎麦"),
        ArchiveSceneEntity(id: 2, photoUrl: "https://p/2.jpg", category: "洋食", dishName: "チーズハンバーグ", shopName: "グリル 銀河", introduction: "CHEESE"),
        ArchiveSceneEntity(id: 10, photoUrl: "https://p/10.jpg", category: "中華", dishName: "麻婆豆腐", shopName: "四川", introduction: "辛い"),
    ])

    func ids(_ query: String) throws -> [Int] {
        try CatalogQuery(query: Substring(query)).answer(from: Self.catalog).rows.map(\.id)
    }

    @Test func qMatchesEveryStringFieldIgnoringCase() throws {
        #expect(try ids("q=cheese") == [2, 3])  // the introduction of 2, the photo URL of 3
        #expect(try ids("q=%E6%B4%8B%E9%A3%9F") == [2, 3])  // 洋食: the category is a string field too
        #expect(try ids("q=") == [1, 2, 3, 10])
        #expect(try ids("q=grill+a") == [3], "+ is a space")
        #expect(try ids("q=%E3%83%AB%20%E9%8A%80") == [2])  // "ル 銀"
        #expect(try ids("q=cheese&q=%E8%95%8E") == [2, 3], "json-server reads the first q")
    }

    @Test func fieldsAreEqualityFiltersRepeatedIsOr() throws {
        #expect(try ids("id=2") == [2])
        #expect(try ids("id=02") == [], "compared as text, as json-server does")
        #expect(try ids("id=2&id=10") == [2, 10])
        #expect(try ids("category=%E6%B4%8B%E9%A3%9F") == [2, 3])
        #expect(try ids("category=%E6%B4%8B%E9%A3%9F&category=%E4%B8%AD%E8%8F%AF") == [2, 3, 10])
        #expect(try ids("category=%E6%B4%8B%E9%A3%9F&id=3") == [3], "different fields: AND")
        #expect(try ids("category=") == [], "an empty value is compared too")
        #expect(try ids("q=cheese&id=3") == [3])
        #expect(try ids("_=123&callback=x") == [1, 2, 3, 10], "ignored, as json-server does")
    }

    @Test func sortAndOrder() throws {
        #expect(try ids("_sort=dishName") == [3, 2, 1, 10])
        #expect(try ids("_sort=id&_order=desc") == [10, 3, 2, 1])
        #expect(try ids("_sort=category,id&_order=asc,desc") == [10, 1, 3, 2])
        #expect(try ids("_sort=category") == [10, 1, 2, 3], "stable: ties keep ID order")
    }

    @Test func pagesCarryTheTotalAndTheLinks() throws {
        let page = try CatalogQuery(query: "_page=2&_limit=1&_sort=id").answer(from: Self.catalog)
        #expect(page.rows.map(\.id) == [2])
        #expect(page.totalCount == 4)
        #expect(page.links.map(\.relation) == ["first", "prev", "next", "last"])
        #expect(page.links.map(\.query) == [
            "_limit=1&_sort=id&_page=1", "_limit=1&_sort=id&_page=1", "_limit=1&_sort=id&_page=3", "_limit=1&_sort=id&_page=4",
        ])
        let last = try CatalogQuery(query: "_page=4&_limit=1").answer(from: Self.catalog)
        #expect(last.links.map(\.relation) == ["first", "prev", "last"])
        let whole = try CatalogQuery(query: "_page=1").answer(from: Self.catalog)
        #expect(whole.rows.count == 4 && whole.links.isEmpty, "one page holding everything has no links")
        #expect(try ids("_page=2") == [], "the default limit is 10")
        // Past the end, even where (page - 1) × limit overflows, is an empty page with its total.
        let beyond = try CatalogQuery(query: "_page=9223372036854775807&_limit=9223372036854775807").answer(from: Self.catalog)
        #expect(beyond.rows.isEmpty && beyond.totalCount == 4)
        #expect(try ids("_limit=2") == [1, 2])
        #expect(try ids("_start=1&_end=3") == [2, 3])
        #expect(try ids("_start=3&_limit=9223372036854775807") == [10])
        #expect(try CatalogQuery(query: "_start=1").answer(from: Self.catalog).totalCount == nil)
    }

    @Test(arguments: [
        ("q=%E3%83", "not a valid query component"),
        ("q=%zz", "not a valid query component"),
        ("q=%", "not a valid query component"),
        ("colour=red", "unknown parameter 'colour'"),
        ("category_like=x", "unknown parameter 'category_like'"),
        ("_page=0", "_page must be a whole number ≥ 1"),
        ("_page=-1", "_page must be a whole number ≥ 1"),
        ("_page=abc", "_page must be a whole number"),
        ("_page=99999999999999999999", "_page must be a whole number"),
        ("_limit=+5", "_limit must be a whole number"),
        ("_sort=price", "cannot sort by 'price'"),
        ("_sort=id&_order=sideways", "_order must be asc or desc"),
    ])
    func badQueriesAreRefusedSayingWhy(query: String, mention: String) {
        let error = #expect(throws: CatalogQueryError.self) { try CatalogQuery(query: Substring(query)) }
        #expect(error?.description.contains(mention) == true, "\(String(describing: error))")
    }

    @Test func queryStringsRoundTripEveryByte() throws {
        let items = [
            QueryString.Item("q", "a+b & c=d %41 ? # / チーズ 🧀"),
            QueryString.Item("category", ""),
            QueryString.Item("名前", "\u{0}\u{7F}"),
        ]
        let encoded = QueryString.encode(items)
        #expect(encoded.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: " ") })
        #expect(try QueryString.decode(Substring(encoded)) == items)
        #expect(try QueryString.decode("a&&b=1&") == [QueryString.Item("a", ""), QueryString.Item("b", "1")])
    }
}
