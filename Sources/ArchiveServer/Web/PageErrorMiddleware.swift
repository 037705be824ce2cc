import ArchiveServerStorage
import Hummingbird
import HTTPTypes
import Logging

/// Every error a page's route throws, as a page (never the sync API's JSON): a
/// ``WebRefusal`` is its page (with `Retry-After`, `Connection: close` or the session's
/// cookie cleared when it says so); a storage failure is the sync API's status for it
/// (``StorageAnswer``) with a page saying what the user can do, its reason in the log
/// only; anything else a `500` page naming the request's ID. The page's headers are added
/// around it (``PageHeadersMiddleware``).
struct PageErrorMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    let pages: PageRenderer
    let cookies: WebSession.Cookies
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let page as WebRefusal {
            var response = pages.render(page)
            if page.status == .tooManyRequests { response.headers[.retryAfter] = "60" }
            if page.close { response.headers[.connection] = "close" }
            if let allow = page.allow { response.headers[.allow] = allow }
            if page.clearsSession { response.headers[.setCookie] = cookies.clear }
            return response
        } catch let error as ServerStorageError {
            // The sync API's status for the failure, as a page; what failed goes to the log only.
            let status = StorageAnswer.statusCode(answering: error)
            StorageAnswer.count(HTTPResponse.Status(code: status))
            logger.error("page request failed", metadata: ["request": "\(context.id)", "error": "\(error)"])
            var response = pages.render("message", ["title": "Not now", "text": Self.text(status: status, requestID: context.id), "back": "/"], status: HTTPResponse.Status(code: status))
            if status == 503 || status == 507 { response.headers[.retryAfter] = "\(StorageAnswer.retryAfterSeconds)" }
            return response
        } catch {
            logger.error("page request failed", metadata: ["request": "\(context.id)", "error": "\(error)"])
            StorageAnswer.count(.internalServerError)
            return pages.render("message", ["title": "Not now", "text": Self.text(status: 500, requestID: context.id), "back": "/"], status: .internalServerError)
        }
    }

    /// What a page says of a failure answered with `status`.
    static func text(status: Int, requestID: String) -> String {
        switch status {
        case 503, 507: "The server cannot store or read favorites just now; nothing was changed. Try again in a moment."
        case 401: "This browser is not signed in (or its session ended): open a new sign-in link."
        default: "The server failed to answer this page (request \(requestID) in its log). Try again later."
        }
    }
}
