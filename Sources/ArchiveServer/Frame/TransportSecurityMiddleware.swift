import Hummingbird
import HTTPTypes

/// `Strict-Transport-Security` on every answer when clients reach the service over HTTPS
/// (the server's own TLS, or `--public-url https://…` behind a proxy that terminates it):
/// a browser that saw one answer of the host over HTTPS, a page, an API answer or a 404,
/// never reaches it over plain HTTP again. A year, as browsers' preload lists ask; not
/// `includeSubDomains`: other hosts of the domain are not the service's to decide.
struct TransportSecurityMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    static let header = HTTPField.Name("Strict-Transport-Security")!
    static let value = "max-age=31536000"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[Self.header] = Self.value
        return response
    }
}
