/// Why a sync with a service did not happen; local data is untouched by the part that failed.
public enum SyncTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The service refused the token (HTTP 401).
    case unauthorized(server: String)
    /// The service could not be reached, or did not answer in time.
    case unreachable(server: String, reason: String)
    /// The service refused a request as too large (HTTP 413).
    case tooLarge(server: String, message: String)
    /// The service refused a request (another 4xx or 5xx), saying `message`.
    case refused(server: String, status: Int, message: String)
    /// The service's answer is not what the API says.
    case badAnswer(server: String, reason: String)
    /// A request (its answer included) took longer than the `seconds` allowed.
    case timedOut(server: String, seconds: Double)
    /// The service had more than `limit` changes to send in one sync;
    /// `applied` of them were applied and are kept.
    case tooManyChanges(server: String, limit: Int, applied: Int)
    /// A plain `http://` URL of a host that is not this machine: the token would cross the
    /// network in the clear. Refused before connecting.
    case insecure(server: String)
    /// The service's TLS certificate was refused (`reason`: its name, its issuer, its dates).
    case untrusted(server: String, reason: String)
    /// The certificate authorities to trust cannot be read.
    case unreadableCAFile(path: String, reason: String)

    /// What failed and what to do, in words of no front (no flag, no variable: a front
    /// says how its own options change it, as `archive`'s `CommandLineSyncError` does).
    public var description: String {
        switch self {
        case .unauthorized(let server):
            "\(server) refused the token (401): it is no device's of this service, or it was revoked"
        case .unreachable(let server, let reason):
            "cannot reach \(server): \(reason); nothing was synced, local favorites are unchanged: try again when online"
        case .tooLarge(let server, let message):
            "\(server) refused a request as too large: \(message)"
        case .refused(let server, let status, let message):
            "\(server) answered \(status): \(message)"
        case .badAnswer(let server, let reason):
            "\(server) gave an answer that is not the sync API's: \(reason); is it an archive-server?"
        case .timedOut(let server, let seconds):
            "\(server) did not answer within \(Self.seconds(seconds)) (a whole request, its answer included); nothing more was synced: try again, or allow longer"
        case .insecure(let server):
            "refusing to send the token to \(server) over plain http, which anyone on the network can read: use https://; nothing was synced"
        case .untrusted(let server, let reason):
            "\(server)'s certificate was refused: \(reason); nothing was synced"
        case .unreadableCAFile(let path, let reason):
            "cannot read the certificate authorities in \(path): \(reason); give a PEM file of CA certificates; nothing was synced"
        case .tooManyChanges(let server, let limit, let applied):
            "\(server) has more than \(limit) changes for this sync: the first \(applied) were applied and are kept; sync again to take the next ones, or allow more"
        }
    }

    /// `value` seconds as a person reads them: "2 s", "0.5 s".
    package static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
