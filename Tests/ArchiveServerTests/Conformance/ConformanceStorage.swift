import ArchiveServerPostgres
import ArchiveServerStorage
import Logging
import TestSupport
import Testing

/// What the conformance suite runs on: each backend (``ServiceBackend``), and PostgreSQL
/// through PgBouncer in transaction mode (``TestPgBouncer``), where every transaction may
/// run on another server connection and a startup parameter PgBouncer does not know is
/// refused: every request the service's storage makes must work there too.
enum ConformanceStorage: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres, postgresThroughPgBouncer

    var testDescription: String { rawValue }

    /// Runs `body` with a new, empty storage of this kind and its users.
    func withUsers(now: Int64, _ body: (any SyncBackend, any UserDirectory) async throws -> Void) async throws {
        switch self {
        case .sqlite: try await ServiceBackend.sqlite.withUsers(now: now, body)
        case .postgres: try await ServiceBackend.postgres.withUsers(now: now, body)
        case .postgresThroughPgBouncer:
            var logger = Logger(label: "tests")
            logger.logLevel = .warning
            let url = try TestPgBouncer.server().newDatabase()
            try await PostgresSyncStorage.with(try PostgresLocation(url: url), maximumConnections: 4, logger: logger) { storage in
                try await body(storage, storage)
            }
        }
    }
}
