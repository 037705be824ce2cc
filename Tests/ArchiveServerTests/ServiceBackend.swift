import ArchiveServerSQLite
import ArchiveServerStorage
import ArchiveServer
import ArchiveServerPostgres
import Logging
import SQLite
import TestSupport
import Testing

/// Where a test's service keeps its data: the same tests run on both.
enum ServiceBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The embedded SQLite database (`--database`, the default).
    case sqlite
    /// PostgreSQL (`--postgres`): a new database on the test process's own server (``TestPostgres``).
    case postgres

    var testDescription: String { rawValue }

    /// Storage options naming a new, empty database of this kind.
    func newStorage(in directory: TemporaryDirectory) throws -> [String] {
        switch self {
        case .sqlite: ["--database", directory.path("server.sqlite3")]
        case .postgres: ["--postgres", try TestPostgres.server().newDatabase()]
        }
    }

    /// Runs `body` with a new, empty backend of this kind and its users.
    func withUsers(now: Int64, _ body: (any SyncBackend, any UserDirectory) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let server = try ServerDatabase(path: ":memory:")
            try await body(SQLiteSyncBackend(database: server), UserStore(database: server))
        case .postgres:
            var logger = Logger(label: "tests")
            logger.logLevel = .warning
            try await PostgresSyncStorage.with(try PostgresLocation(url: try TestPostgres.server().newDatabase()), logger: logger) { storage in
                try await body(storage, storage)
            }
        }
    }

    /// Runs `body` with a new, empty backend of this kind, user `alice` added and her
    /// devices (each signing in with a token of its own), and a way to count the tombstones
    /// the backend keeps.
    func withBackend(
        now: Int64, connections: Int = 2, _ body: (any SyncBackend, BackendDevices, _ tombstones: () async throws -> Int) async throws -> Void
    ) async throws {
        switch self {
        case .sqlite:
            let server = try ServerDatabase(path: ":memory:")
            let users = UserStore(database: server)
            _ = try users.add("alice", now: now)
            let backend = SQLiteSyncBackend(database: server)
            try await body(backend, BackendDevices(backend: backend, users: users, user: "alice", now: now)) {
                try server.queue.read { db in try db.fetchOne("SELECT count(*) FROM user_favorites WHERE removed = 1") { try $0.int(at: 0) } } ?? -1
            }
        case .postgres:
            let postgres = try TestPostgres.server()
            let url = try postgres.newDatabase()
            var logger = Logger(label: "tests")
            logger.logLevel = .warning
            try await PostgresSyncStorage.with(try PostgresLocation(url: url), maximumConnections: connections, logger: logger) { storage in
                _ = try await storage.add("alice", now: now)
                try await body(storage, BackendDevices(backend: storage, users: storage, user: "alice", now: now)) {
                    Int(try postgres.query("SELECT count(*) FROM user_favorites WHERE removed", in: url)) ?? -1
                }
            }
        }
    }
}
