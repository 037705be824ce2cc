/// A json-server query on the catalog collection (`/archive_images?…`), parsed
/// once and applied to a catalog: what `archive-server` answers at `/archive_images`.
///
/// - `q`: the ``SearchKeyword`` (every string field, ignoring case);
/// - any field (``CatalogField``) as an equality filter on its text; a field
///   repeated is an OR (`category=洋食&category=和食`), different fields an AND;
/// - `_sort=field[,field…]` and `_order=asc|desc[,…]` (default: by ID);
/// - `_page` (from 1) with `_limit` (default 10), or `_start`/`_end`/`_limit` slices;
///   any of `_page`, `_limit`, `_end` makes the answer carry the total count,
///   and `_page` the `first`/`prev`/`next`/`last` links.
///
/// `_` and `callback` are ignored, as json-server does; any other parameter is
/// refused (``CatalogQueryError``) rather than silently matching nothing.
public struct CatalogQuery: Sendable, Equatable {
    /// The keyword (`q`); empty matches everything.
    public var keyword = SearchKeyword("")
    /// The equality filters: each field with the values any of which it must equal.
    public var filters: [CatalogField: [String]] = [:]
    /// The sort keys, most significant first (`true` = descending).
    public var sort: [SortKey] = []
    /// `_page`, from 1.
    public var page: Int?
    /// `_limit`.
    public var limit: Int?
    /// `_start`.
    public var start: Int?
    /// `_end`.
    public var end: Int?
    /// The query's items as given, for the paging links.
    let items: [QueryString.Item]

    /// One `_sort` field and its `_order`.
    public struct SortKey: Sendable, Hashable {
        /// The field.
        public var field: CatalogField
        /// Whether the order is descending.
        public var descending: Bool
    }

    /// What a query answers: the rows, and for paged queries the total and the links.
    public struct Answer: Sendable, Equatable {
        /// The rows of this page or slice.
        public var rows: [ArchiveSceneEntity]
        /// How many rows match in all, when the query paged or sliced (`X-Total-Count`).
        public var totalCount: Int?
        /// The paging links (`first`, `prev`, `next`, `last`), in that order.
        public var links: [Link]
    }

    /// One paging link: its relation and the query it points to.
    public struct Link: Sendable, Hashable {
        /// `first`, `prev`, `next` or `last`.
        public var relation: String
        /// The query of that page (encoded, without the `?`).
        public var query: String
    }

    /// Parses `query` (the URL's part after `?`, still encoded).
    public init(query: Substring) throws(CatalogQueryError) {
        items = try QueryString.decode(query)
        var sortFields: [CatalogField] = []
        var orders: [Bool] = []
        var seenSort = false
        var seenOrder = false
        var seenKeyword = false
        for item in items {
            switch item.name {
            case "q":
                // json-server reads the first `q` only.
                if !seenKeyword { keyword = SearchKeyword(item.value) }
                seenKeyword = true
            case "_page": page = try Self.number(item, minimum: 1)
            case "_limit": limit = try Self.number(item, minimum: 0)
            case "_start": start = try Self.number(item, minimum: 0)
            case "_end": end = try Self.number(item, minimum: 0)
            case "_sort":
                guard !seenSort else { continue }
                seenSort = true
                sortFields = try item.value.split(separator: ",").map { name throws(CatalogQueryError) in
                    guard let field = CatalogField(rawValue: String(name)) else { throw .unknownSortField(String(name)) }
                    return field
                }
            case "_order":
                guard !seenOrder else { continue }
                seenOrder = true
                orders = try item.value.split(separator: ",").map { value throws(CatalogQueryError) in
                    switch value.lowercased() {
                    case "asc": return false
                    case "desc": return true
                    default: throw .invalidOrder(String(value))
                    }
                }
            case "_", "callback":
                continue
            default:
                guard let field = CatalogField(rawValue: item.name) else { throw .unknownParameter(item.name) }
                filters[field, default: []].append(item.value)
            }
        }
        sort = sortFields.enumerated().map { SortKey(field: $1, descending: $0 < orders.count ? orders[$0] : false) }
    }

    /// The answer over `catalog`.
    public func answer(from catalog: BundledArchiveRepository) -> Answer {
        var rows = catalog.entities(matching: keyword)
        if !filters.isEmpty {
            rows = rows.filter { entity in
                filters.allSatisfy { field, values in values.contains(field.text(of: entity)) }
            }
        }
        if !sort.isEmpty {
            // A stable sort (the catalog is in ID order), as json-server's lodash orderBy.
            rows = rows.enumerated().sorted { first, second in
                for key in sort {
                    if key.field.ascending(first.element, second.element) { return !key.descending }
                    if key.field.ascending(second.element, first.element) { return key.descending }
                }
                return first.offset < second.offset
            }.map(\.element)
        }
        let total = rows.count
        if let page {
            return pageAnswer(rows, page: page, perPage: limit ?? 10)
        }
        guard limit != nil || end != nil || start != nil else { return Answer(rows: rows, totalCount: nil, links: []) }
        let lower = min(start ?? 0, total)
        let (sum, overflow) = lower.addingReportingOverflow(limit ?? 0)
        let upper = max(lower, min(end ?? (limit != nil ? (overflow ? total : sum) : total), total))
        return Answer(rows: Array(rows[lower..<upper]), totalCount: limit != nil || end != nil ? total : nil, links: [])
    }

    // MARK: - Paging

    private func pageAnswer(_ rows: [ArchiveSceneEntity], page: Int, perPage: Int) -> Answer {
        let total = rows.count
        // Past the end (including products that overflow) is an empty page.
        let (start, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        guard !overflow, start < total, perPage > 0 else { return Answer(rows: [], totalCount: total, links: []) }
        let end = min(total, start + min(perPage, total - start))
        var links: [Link] = []
        if end - start != total {
            let last = (total + perPage - 1) / perPage
            links.append(Link(relation: "first", query: linkQuery(page: 1)))
            if page > 1 { links.append(Link(relation: "prev", query: linkQuery(page: page - 1))) }
            if end < total { links.append(Link(relation: "next", query: linkQuery(page: page + 1))) }
            links.append(Link(relation: "last", query: linkQuery(page: last)))
        }
        return Answer(rows: Array(rows[start..<end]), totalCount: total, links: links)
    }

    /// This query with `_page` set to `page` (encoded, without the `?`).
    private func linkQuery(page: Int) -> String {
        var replaced = items.filter { $0.name != "_page" }
        replaced.append(QueryString.Item("_page", String(page)))
        return QueryString.encode(replaced)
    }

    private static func number(_ item: QueryString.Item, minimum: Int) throws(CatalogQueryError) -> Int {
        guard item.value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let number = Int(item.value), number >= minimum
        else { throw .invalidNumber(parameter: item.name, value: item.value, minimum: minimum) }
        return number
    }
}
