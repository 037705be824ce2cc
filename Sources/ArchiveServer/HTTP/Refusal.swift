import ArchiveHTTPServer
import Hummingbird
import HTTPTypes

/// A request the service refuses: the answer to send instead.
struct Refusal: Error {
    var response: Response

    /// `status` with `{"error": message}`; `close` (or a request that announced a body
    /// left unread) closes the connection after the answer, so the body is never read.
    init(_ status: HTTPResponse.Status, _ message: String, request: Request? = nil, close: Bool = false) {
        response = ServiceResponse.error(message, status: status)
        if close || request.map(ServiceResponse.announcesBody) == true { response.headers[.connection] = "close" }
    }

    /// The one answer to every authentication failure: `401`, `WWW-Authenticate: Bearer`.
    static func unauthorized(_ request: Request) -> Refusal {
        var refusal = Refusal(.unauthorized, "unauthorized", request: request)
        refusal.response.headers[.wwwAuthenticate] = "Bearer"
        return refusal
    }
}
