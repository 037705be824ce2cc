import ArchiveHTTPServer
import Hummingbird
import HTTPTypes

/// With `--public-url`, the service answers only requests for its public host, or for a
/// loopback name (`127.0.0.1`, `localhost`, `[::1]`: a health check, the proxy in front):
/// a defence against DNS rebinding, where another site's page, its name pointed at this
/// machine, would otherwise reach the service as if it were that site. Any other `Host`
/// (or none) is `421 Misdirected Request`, before any route, token or body is read.
struct HostCheckMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    /// The hosts answered, lowercased, each with and without its port.
    let allowed: Set<String>
    /// The public URL's authority, as said in the refusal.
    let publicHost: String

    /// The check for the public URL `publicURL` (`http(s)://HOST[:PORT]`), or `nil` when it
    /// names no host.
    init?(publicURL: String) {
        let defaultPort: String
        let rest: Substring
        if publicURL.hasPrefix("https://") {
            (defaultPort, rest) = ("443", publicURL.dropFirst("https://".count))
        } else if publicURL.hasPrefix("http://") {
            (defaultPort, rest) = ("80", publicURL.dropFirst("http://".count))
        } else {
            return nil
        }
        let authority = String(rest.prefix { $0 != "/" }).lowercased()
        guard !authority.isEmpty else { return nil }
        publicHost = authority
        // "host" and "host:443" are one host to a browser; "[v6]" keeps its brackets.
        let afterName = authority.hasPrefix("[") ? authority.drop { $0 != "]" }.dropFirst() : authority.drop { $0 != ":" }
        let hasPort = afterName.hasPrefix(":") && afterName.count > 1 && afterName.dropFirst().allSatisfy(\.isNumber)
        allowed = hasPort ? [authority] : [authority, authority + ":" + defaultPort]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let host = request.head.authority?.lowercased(), allowed.contains(host) || Self.isLoopback(host) else {
            return ServiceResponse.error(
                "this service answers for \(publicHost) (its --public-url) and loopback only, not for \(String((request.head.authority ?? "no Host").prefix(100)))",
                status: .misdirectedRequest)
        }
        return try await next(request, context)
    }

    /// Whether `host` (lowercased, with or without a port) is a loopback name.
    static func isLoopback(_ host: String) -> Bool {
        var name = Substring(host)
        if name.hasPrefix("[") {
            guard let end = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: end)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber) && rest.count > 1) else { return false }
            return name[...end] == "[::1]"
        }
        if let colon = name.lastIndex(of: ":") {
            let port = name[name.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isNumber) else { return false }
            name = name[..<colon]
        }
        return name == "localhost" || name == "127.0.0.1"
    }
}
