import Logging
import PostgresNIO

/// One transaction on a connection leased from the pool: `BEGIN`, the work, `COMMIT`, or
/// `ROLLBACK` when the work throws, whose error then goes up as it was thrown (so the
/// service's own refusals, such as a stale push, keep their type); PostgresNIO's errors are
/// said with what PostgreSQL reported (``PostgresStorageError``).
enum PostgresTransaction {
    /// How the transaction sees the database.
    enum Kind: String, Sendable {
        /// PostgreSQL's default (read committed): each statement sees what was committed
        /// before it began; writes take their locks.
        case readWrite = "BEGIN"
        /// One snapshot for every statement of the transaction, and no writes: a page read
        /// in several statements (the feed's position, then the rows) is of one moment, as
        /// on SQLite.
        case snapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    }

    static func run<Result: Sendable>(
        _ client: PostgresClient, _ kind: Kind = .readWrite, while what: String, logger: Logger,
        _ work: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await client.withConnection { connection in
                try await connection.query(PostgresQuery(unsafeSQL: kind.rawValue), logger: logger)
                let result: Result
                do {
                    result = try await work(connection)
                } catch {
                    // A connection that cannot roll back is closed by the pool; the first error is
                    // what matters. A closed one is not written to: the statement's answer would
                    // never come.
                    if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: logger) }
                    throw error
                }
                try await connection.query("COMMIT", logger: logger)
                return result
            }
        } catch {
            throw PostgresStorageError.wrapping(error, while: what)
        }
    }
}
