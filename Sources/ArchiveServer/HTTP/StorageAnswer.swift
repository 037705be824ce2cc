package import ArchiveServerStorage
import ArchiveHTTPServer
import Hummingbird
import HTTPTypes

/// The answer to a storage failure (``ServerStorageError``), on the sync API and, as a
/// page, on the web page.
package enum StorageAnswer {
    /// What a client is asked to wait before sending a request the database could not take
    /// (`Retry-After`), in seconds.
    static let retryAfterSeconds = 2

    /// The answer to a storage failure: a token used by a device it does not serve `403`, a
    /// device forgotten since its cursor `410`, a stale push `409`, a database out of reach or past
    /// the request's deadline `503`, a full disk `507` (both with `Retry-After`: nothing was
    /// acknowledged, the same request may be sent again), anything else `500`. The `503` and
    /// `507` bodies say what the client can do, the `500`'s the request's ID, and nothing of
    /// the server's inside (its file's path, PostgreSQL's words): those go to the log.
    static func response(to error: ServerStorageError, requestID: String) -> Response {
        var response: Response
        switch error {
        case .stalePush:
            return ServiceResponse.error(error.description, status: .conflict)
        case .forgottenDevice:
            return ServiceResponse.error(error.description, status: .gone)
        case .tokenOfAnotherDevice:
            // The token is good, for another device: saying so tells its holder nothing new.
            return ServiceResponse.error(error.description, status: .forbidden)
        case .noSuchUser:
            // Removed (or removed and added again) after its token was checked: the token
            // no longer names a user, and the answer is every authentication failure's.
            var refusal = ServiceResponse.error("unauthorized", status: .unauthorized)
            refusal.headers[.wwwAuthenticate] = "Bearer"
            return refusal
        case .unavailable:
            response = ServiceResponse.error(
                "the server's database is unavailable now; nothing was acknowledged: send the same request again shortly",
                status: .serviceUnavailable)
        case .storageFull:
            response = ServiceResponse.error(
                "the server's disk is full; nothing was written: try again later",
                status: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"))
        default:
            return internalError(requestID: requestID)
        }
        response.headers[.retryAfter] = "\(retryAfterSeconds)"
        return response
    }

    /// Counts a storage failure answered with `status`.
    static func count(_ status: HTTPResponse.Status) {
        switch status.code {
        case 500: ServiceMetrics.storageError("failed")
        case 503: ServiceMetrics.storageError("unavailable")
        case 507: ServiceMetrics.storageError("full")
        default: ServiceMetrics.refused(status: Int(status.code))
        }
    }

    /// A `500`: nothing of the failure (a path, SQL, PostgreSQL's words), only the request's
    /// ID, under which the log says what failed.
    static func internalError(requestID: String) -> Response {
        ServiceResponse.error(
            "the server failed to answer this request (request \(requestID) in its log); try again later",
            status: .internalServerError)
    }

    /// The status code of ``response(to:requestID:)``'s answer to `error`.
    package static func statusCode(answering error: ServerStorageError) -> Int {
        Int(response(to: error, requestID: "0").status.code)
    }
}
