import Hummingbird
import HTTPTypes

/// The headers every answer of the page's group carries, its refusals and failures too:
/// scripts, styles, connections from this origin only (no inline script, whatever a dish's
/// name holds), photos over https, no framing, no referrer (a sign-in link's secret never
/// leaves in one). `Strict-Transport-Security` is the whole service's
/// (``TransportSecurityMiddleware``).
struct PageHeadersMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!

    /// The page's policy: nothing but this origin's scripts, styles and connections.
    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[Self.contentSecurityPolicy] = Self.policy
        response.headers[Self.contentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        response.headers[Self.frameOptions] = "DENY"
        return response
    }
}
