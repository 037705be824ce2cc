/// Why a catalog query (the part of a catalog request after `?`) was refused:
/// each case names the parameter and what is accepted. `archive-server` answers it with `400`.
public enum CatalogQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A `%` escape is incomplete or not hexadecimal, or the bytes are not UTF-8.
    case invalidEncoding(String)
    /// A parameter that is neither a field nor one of json-server's `q`, `_page`, `_limit`, `_start`, `_end`, `_sort`, `_order`.
    case unknownParameter(String)
    /// A paging parameter that is not a whole number in range.
    case invalidNumber(parameter: String, value: String, minimum: Int)
    /// A `_sort` entry that is not a field.
    case unknownSortField(String)
    /// An `_order` entry that is neither `asc` nor `desc`.
    case invalidOrder(String)

    /// A message a client can act on.
    public var description: String {
        switch self {
        case .invalidEncoding(let text):
            return "'\(text)' is not a valid query component: escape bytes as %XX and send UTF-8"
        case .unknownParameter(let name):
            return "unknown parameter '\(name)': use q, a field (\(CatalogField.names)), _page, _limit, _start, _end, _sort or _order"
        case .invalidNumber(let parameter, let value, let minimum):
            return "\(parameter) must be a whole number ≥ \(minimum), got '\(value)'"
        case .unknownSortField(let name):
            return "cannot sort by '\(name)': the fields are \(CatalogField.names)"
        case .invalidOrder(let value):
            return "_order must be asc or desc (one per _sort field, comma-separated), got '\(value)'"
        }
    }
}
