import ArchiveServerStorage
import Hummingbird

/// The gate of the page's routes that need a signed-in browser, after
/// ``SessionAuthenticator``: without a browser's session the answer is a page saying so
/// (and the cookie is removed), before the request's form is read.
struct PageSessionMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    /// What a request without a session is answered.
    static var notSignedIn: WebRefusal {
        WebRefusal(.unauthorized, "Not signed in", "This browser is not signed in (or its session ended): open a new sign-in link.", back: "/", clearsSession: true)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.identity?.boundDevice != nil, WebSession.token(of: request) != nil else { throw Self.notSignedIn }
        return try await next(request, context)
    }
}
