import Hummingbird
import Logging

/// One log line per request, at `info`, once its answer is made: the ID Hummingbird gives
/// it, its method, path (never its query, which a careless client may put a token in),
/// status and user (``RequestRecord``); no token, no header. Hummingbird's own
/// `LogRequestsMiddleware` logs the whole URI, query and all, and cannot name the user an
/// authenticator found further in, so the service has this one.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            // Nothing inside should throw (ErrorAnswerMiddleware answers every error); if
            // something does, Hummingbird answers 500, and the line says so.
            logger.info("request", metadata: Self.metadata(of: request, id: context.id, status: 500, user: context.record.user))
            throw error
        }
        // The metadata is an autoclosure: built only when the log level lets the line out.
        logger.info("request", metadata: Self.metadata(of: request, id: context.id, status: response.status.code, user: context.record.user))
        return response
    }

    /// A request's log line's metadata: its ID, method, path, answer's status and user.
    private static func metadata(of request: Request, id: String, status: Int, user: String?) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "request": "\(id)", "method": "\(request.method.rawValue)", "path": "\(request.uri.path)", "status": "\(status)",
        ]
        if let user { metadata["user"] = "\(user)" }
        return metadata
    }
}
