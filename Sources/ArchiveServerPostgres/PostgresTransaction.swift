import Logging
import PostgresNIO

/// One transaction on a connection leased from the pool: `BEGIN`, the work, `COMMIT`, or
/// `ROLLBACK` when the work throws, whose error then goes up as it was thrown (so the
/// service's own refusals, such as a stale push, keep their type); PostgresNIO's errors are
/// said with what PostgreSQL reported (``PostgresStorageError``).
enum PostgresTransaction {
    static func run<Result: Sendable>(
        _ client: PostgresClient, while what: String, logger: Logger,
        _ work: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
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
