import Hummingbird
import HTTPTypes

/// The page's changes (signing in, a heart, signing out) must come from this origin: a
/// cross-site `Sec-Fetch-Site`, or an `Origin` of another host, is refused before anything
/// else, the form unread (the session's cookie is `SameSite=Strict` too). `Origin: null` is
/// what a browser sends for the page's own forms under `Referrer-Policy: no-referrer`: it
/// passes only with `Sec-Fetch-Site: same-origin` (a sandboxed frame of another site says
/// `cross-site`).
struct SameOriginMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let forbidden = WebRefusal(.forbidden, "Refused", "This form was sent from another site.")
        let site = request.headers[Self.fetchSite]
        if let site, site != "same-origin", site != "none" { throw forbidden }
        if let origin = request.headers[Self.origin] {
            if origin == "null" {
                guard site == "same-origin" else { throw forbidden }
            } else {
                guard let host = request.head.authority, origin == "http://" + host || origin == "https://" + host else { throw forbidden }
            }
        }
        return try await next(request, context)
    }

    private static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!
    private static let origin = HTTPField.Name("Origin")!
}
