import ArchiveHTTPServer
import Hummingbird
import HTTPTypes

/// A request the service refuses: an error that carries its answer (`HTTPResponseError`),
/// which ``ErrorAnswerMiddleware`` sends instead.
///
/// Only what the answer says is kept; its JSON body is written when it is sent
/// (``response``), not when the refusal is made: a push makes the refusals it may need
/// (a body too large, too late, a server too busy) before it reads its body, and most
/// pushes need none of them.
struct Refusal: HTTPResponseError {
    /// The answer's status.
    let status: HTTPResponse.Status
    /// What `{"error": …}` says.
    let message: String
    /// Headers beside `Content-Type` (`Connection: close`, `Retry-After`, `Allow`, …).
    var headers: HTTPFields = [:]

    /// `status` with `{"error": message}`; `close` closes the connection after the answer
    /// (a body being read when it was refused: the rest is never read). A body the route
    /// never began to read closes it anyway (``FramingMiddleware``).
    init(_ status: HTTPResponse.Status, _ message: String, close: Bool = false) {
        self.status = status
        self.message = message
        if close { headers[.connection] = "close" }
    }

    /// The answer: `status`, `{"error": message}` and ``headers``.
    var response: Response {
        var response = ServiceResponse.error(message, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    /// ``response``, as Hummingbird asks an `HTTPResponseError` for it.
    func response(from request: Request, context: some RequestContext) throws -> Response { response }

    /// The one answer to every authentication failure: `401`, `WWW-Authenticate: Bearer`.
    static var unauthorized: Refusal {
        var refusal = Refusal(.unauthorized, "unauthorized")
        refusal.headers[.wwwAuthenticate] = "Bearer"
        return refusal
    }

    /// `405` for `method` at `path`, naming the methods that are served there.
    static func methodNotAllowed(_ method: HTTPRequest.Method, at path: String, allowed: [HTTPRequest.Method]) -> Refusal {
        let names = allowed.map(\.rawValue)
        var refusal = Refusal(.methodNotAllowed, "\(method.rawValue) is not served at \(path): use \(names.joined(separator: " or "))")
        refusal.headers[.allow] = names.joined(separator: ", ")
        return refusal
    }
}
