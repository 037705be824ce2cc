import ArchiveHTTPServer
import Hummingbird
import HTTPTypes

/// The rules of how an answer is framed on its connection, for every route:
///
/// - a `CONNECT` is refused `405` and its connection closed: its answer goes out with no
///   length and no body (SwiftNIO frames it as a tunnel's), so only the connection's end
///   can frame it;
/// - a body the route did not read (a GET with one, a refusal before the body) is never
///   read: the answer says `Connection: close` and the connection closes once it is
///   written (``ConnectionLimitHandler``), so a body trickled a byte at a time holds no slot.
struct FramingMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .connect {
            var refusal = ServiceResponse.error("CONNECT is not served: this is not a proxy", status: .methodNotAllowed)
            refusal.headers[.allow] = "GET, HEAD, POST"
            refusal.headers[.connection] = "close"
            return refusal
        }
        var response = try await next(request, context)
        if !context.record.bodyRead, ServiceResponse.announcesBody(request) { response.headers[.connection] = "close" }
        return response
    }
}
