import ArchiveNetwork
import ArchiveSyncWire
import ArchiveServerStorage
import PostgresNIO
import SQLite

/// Why the service's PostgreSQL storage failed.
public enum PostgresStorageError: Error, Sendable, CustomStringConvertible {
    /// `--postgres` is not a URL the service understands.
    case invalidURL(String)
    /// PostgreSQL, or the way to it, failed: `what` was being done.
    case database(what: String, reason: String)
    /// The first connection to PostgreSQL at `location` failed: `reason` says why in words,
    /// `advice` what to change (a retry only where one helps).
    case cannotConnect(location: String, reason: String, advice: String)
    /// PostgreSQL at `location` says `synchronous_commit = off` to the service's role `user`:
    /// a commit returns before it is flushed, so an acknowledged push could be lost.
    case commitsNotFlushed(location: String, user: String)

    /// What failed and what to do.
    public var description: String {
        switch self {
        case .invalidURL(let reason):
            "invalid --postgres URL: \(reason)"
        case .database(let what, let reason):
            "PostgreSQL failed while \(what): \(reason)"
        case .cannotConnect(let location, let reason, let advice):
            "cannot connect to PostgreSQL (\(location)): \(reason); \(advice)"
        case .commitsNotFlushed(let location, let user):
            "PostgreSQL (\(location)) runs the service's sessions with synchronous_commit = off: a push would be answered 200 before it is on disk, and lost in a crash; turn it on for the service's role (ALTER ROLE \(user) SET synchronous_commit = on) or in postgresql.conf, then start again"
        }
    }

    /// `error` from PostgresNIO, said with what PostgreSQL reported (its `PSQLError`s
    /// describe themselves generically, to keep queries out of logs). PostgreSQL out of
    /// reach (no connection, a connection closed under the query, the server shutting down
    /// or starting, too many connections) is ``ServerStorageError/unavailable(_:)``, its disk
    /// full ``ServerStorageError/storageFull(_:)``: the service answers those `503` and `507`.
    static func wrapping(_ error: any Error, while what: String) -> any Error {
        // The service's own errors (a refusal thrown inside a transaction, a schema this
        // build cannot use) go up as they are.
        if error is PostgresStorageError || error is CancellationError || error is ServerStorageError || error is MigrationError { return error }
        guard let error = error as? PSQLError else {
            // The pool's own: no connection could be made, or the pool was shut down.
            return ServerStorageError.unavailable("no connection to PostgreSQL while \(what) (\(NetworkFailure.phrase(for: error) ?? "\(error)")): check that it runs and that the URL is right")
        }
        // A connection that failed is said in plain words (NetworkFailure), not as NIO's
        // "connectionError (Connection errors: …) (errno: 111)".
        var reason = error.underlying.flatMap(NetworkFailure.phrase(for:)) ?? "\(error.code)"
        if let message = error.serverInfo?[.message] { reason += ": \(message)" }
        let state = error.serverInfo?[.sqlState]
        if let state { reason += " (SQLSTATE \(state))" }
        if let underlying = error.underlying, NetworkFailure.phrase(for: underlying) == nil { reason += " (\(underlying))" }
        switch (error.code, state) {
        case (_, "53100"?):
            return ServerStorageError.storageFull("PostgreSQL while \(what): \(reason)")
        case (.serverClosedConnection, _), (.connectionError, _), (.uncleanShutdown, _), (.clientClosedConnection, _), (.poolClosed, _):
            return ServerStorageError.unavailable("PostgreSQL while \(what): \(reason)")
        case (_, let state?) where Self.unavailableStates.contains(state) || state.hasPrefix("08"):
            return ServerStorageError.unavailable("PostgreSQL while \(what): \(reason)")
        default:
            return database(what: what, reason: reason)
        }
    }

    /// The SQLSTATEs of a PostgreSQL that is going away or not ready yet (class 08, the
    /// connection's, is matched by prefix): too many connections, administrator or crash
    /// shutdown, starting up, and `idle_session_timeout`'s end of a connection.
    static let unavailableStates: Set<String> = ["53300", "57P01", "57P02", "57P03", "57P05"]
}
