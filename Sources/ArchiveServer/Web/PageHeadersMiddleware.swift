import Hummingbird
import HTTPTypes

/// The headers every answer of the page's group carries, its refusals and failures too:
/// scripts, styles, connections from this origin only (no inline script, whatever a dish's
/// name holds), photos over https, no framing, no referrer (a sign-in link's secret never
/// leaves in one); and, when browsers reach the page over HTTPS (the server's own TLS, or
/// `--public-url https://…` behind a proxy that terminates it), `Strict-Transport-Security`.
struct PageHeadersMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    /// Whether browsers reach the page over HTTPS.
    let overHTTPS: Bool

    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!
    static let strictTransportSecurity = HTTPField.Name("Strict-Transport-Security")!

    /// The page's policy: nothing but this origin's scripts, styles and connections.
    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[Self.contentSecurityPolicy] = Self.policy
        response.headers[Self.contentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        response.headers[Self.frameOptions] = "DENY"
        // A year, as browsers' preload lists ask; not `includeSubDomains`: other hosts of the
        // domain are not the service's to decide.
        if overHTTPS { response.headers[Self.strictTransportSecurity] = "max-age=31536000" }
        return response
    }
}
