/// Why the catalog could not answer. Each case names the URL (or the bundled catalog) and what to do.
public enum ArchiveAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No dish has this ID.
    case notFound(id: Int, source: String)
    /// The base URL is not an absolute http(s) URL.
    case invalidBaseURL(String)
    /// The base URL has a query (`?…`) or a fragment (`#…`), which a request's own
    /// query would be appended to (or lost behind): refused rather than misread.
    case baseURLWithQueryOrFragment(String)
    /// The server did not answer within the timeout.
    case timeout(url: String, seconds: Double)
    /// The server could not be reached (refused, unknown host, connection lost...).
    case unreachable(url: String, reason: String)
    /// The server answered with a non-2xx status.
    case badStatus(url: String, status: Int)
    /// The body is not JSON.
    case malformedJSON(url: String, reason: String)
    /// The body is JSON, but not of the expected shape.
    case unexpectedShape(url: String, reason: String)
    /// The body is larger than the client accepts.
    case tooLarge(url: String, limit: Int)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .notFound(let id, let source):
            return "no dish with ID \(id) in \(source); search the catalog to find valid IDs"
        case .invalidBaseURL(let text):
            return "'\(text)' is not an http(s) URL; pass a base URL such as http://127.0.0.1:3000"
        case .baseURLWithQueryOrFragment(let text):
            return "'\(text)' has a query or a fragment ('?…' or '#…'); pass the catalog's base URL alone, such as http://127.0.0.1:3000 (the search adds its own query)"
        case .timeout(let url, let seconds):
            return "\(url) did not answer within \(seconds.compactDecimal) s; check that the server is up, or allow more time with --timeout SECONDS (env ARCHIVE_API_TIMEOUT)"
        case .unreachable(let url, let reason):
            return "cannot reach \(url): \(reason); check the URL and that the server is running"
        case .badStatus(let url, let status):
            return "\(url) answered HTTP \(status); the server failed or the URL is wrong"
        case .malformedJSON(let url, let reason):
            return "\(url) did not return JSON (\(reason)); is this a json-server-style archive endpoint?"
        case .unexpectedShape(let url, let reason):
            return "\(url) returned JSON of an unexpected shape: \(reason)"
        case .tooLarge(let url, let limit):
            return "\(url) answered with more than \(limit / (1 << 20)) MiB (the limit is \(limit) bytes); is this a json-server-style archive endpoint?"
        }
    }
}
