import ArchiveServerStorage
import ArchiveAPI
import ArchiveSyncWire
import ArchiveHTTPServer
import Hummingbird
import HTTPTypes
import Logging

/// Every error a route of the sync API, the catalog or `/health` throws, as its answer:
/// `{"error": "…"}` with the status that says why, written once here.
///
/// - an error that carries its answer (`HTTPResponseError`: ``Refusal``) is that answer;
/// - a storage failure (``ServerStorageError``) is ``StorageAnswer``'s status (`409`,
///   `410`, `503`/`507` with `Retry-After`, …), its reason in the log only;
/// - Hummingbird's own (a path of no route) say so in the API's words;
/// - anything else is a `500` naming only the request's ID, under which the log says what
///   failed: never a path, SQL or PostgreSQL's words.
struct ErrorAnswerMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let refusal as Refusal {
            ServiceMetrics.refused(status: Int(refusal.status.code))
            return refusal.response
        } catch let error as ServerStorageError {
            let response = StorageAnswer.response(to: error, requestID: context.id)
            StorageAnswer.count(response.status)
            if response.status == .internalServerError {
                logger.error("request failed", metadata: ["request": "\(context.id)", "error": "\(error)"])
            } else {
                logger.warning("request refused", metadata: ["request": "\(context.id)", "error": "\(error)"])
            }
            return response
        } catch let error as HTTPError where error.status == .notFound {
            ServiceMetrics.refused(status: 404)
            return ServiceResponse.error(
                "nothing at \(request.uri.path): the sync API is at \(SyncAPI.pushPath) and \(SyncAPI.pullPath), the catalog at /\(CatalogPath.collection)",
                status: .notFound)
        } catch {
            logger.error("request failed", metadata: ["request": "\(context.id)", "error": "\(error)"])
            ServiceMetrics.storageError("failed")
            return StorageAnswer.internalError(requestID: context.id)
        }
    }
}
