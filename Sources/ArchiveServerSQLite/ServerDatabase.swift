package import SQLite

/// The sync service's own SQLite database (`archive-server --database PATH`): users,
/// their tokens' hashes, their favorites with sync stamps, their devices. Opened with the
/// front-door checks of any archive database (a regular file, not a newer schema), and
/// migrated by ``ServerMigrations``.
///
/// One connection serves every request, one at a time (SQLite has one writer at a time;
/// docs/SYNC-API.md says where that bounds the service).
public struct ServerDatabase: Sendable {
    /// The connection.
    package let queue: DatabaseQueue

    /// Opens (or creates) the service's database at `path` (`:memory:` for a private one).
    /// A favorites database of `archive` is refused: it is not the service's.
    public init(path: String) throws {
        try self.init(path: path, configuration: Configuration())
    }

    /// Opens it with `configuration` (a test's crash VFS).
    package init(path: String, configuration: Configuration) throws {
        if path != Database.inMemoryPath { try DatabasePath.check(path) }
        queue = try DatabaseQueue(path: path, configuration: configuration, migrator: ServerMigrations.migrator())
        try queue.read { db in try db.add(FoldedSubstring.sqlFunction) }
    }

    /// The file's path (or `:memory:`).
    public var path: String { queue.path }

    /// Closes the connection now (its log checkpointed into the file): the service calls it
    /// when it stops, after its last request. Every later call fails.
    public func close() {
        queue.close()
    }

    /// Whether the database answers a read (the health endpoint).
    public func isHealthy() -> Bool {
        (try? queue.read { db in try db.fetchOne("SELECT count(*) FROM users") { try $0.int(at: 0) } }) != nil
    }
}
