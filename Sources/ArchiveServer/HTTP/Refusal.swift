import ArchiveHTTPServer
import Hummingbird
import HTTPTypes

/// A request the service refuses: the answer to send instead.
///
/// Only what the answer says is kept; its JSON body is written when it is sent
/// (``response``), not when the refusal is made: a push makes the refusals it may need
/// (a body too large, too late, a server too busy) before it reads its body, and most
/// pushes need none of them.
struct Refusal: Error {
    /// The answer's status.
    let status: HTTPResponse.Status
    /// What `{"error": …}` says.
    let message: String
    /// Headers beside `Content-Type` (`Connection: close`, `Retry-After`, `Allow`, …).
    var headers: HTTPFields = [:]

    /// `status` with `{"error": message}`; `close` (or a request that announced a body
    /// left unread) closes the connection after the answer, so the body is never read.
    init(_ status: HTTPResponse.Status, _ message: String, request: Request? = nil, close: Bool = false) {
        self.status = status
        self.message = message
        if close || request.map(ServiceResponse.announcesBody) == true { headers[.connection] = "close" }
    }

    /// The answer: `status`, `{"error": message}` and ``headers``.
    var response: Response {
        var response = ServiceResponse.error(message, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    /// The one answer to every authentication failure: `401`, `WWW-Authenticate: Bearer`.
    static func unauthorized(_ request: Request) -> Refusal {
        var refusal = Refusal(.unauthorized, "unauthorized", request: request)
        refusal.headers[.wwwAuthenticate] = "Bearer"
        return refusal
    }
}
