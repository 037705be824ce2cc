/// The one owner of a ``Database`` connection: every access is serialized by a lock.
///
/// Why a lock and not an actor: SQLite calls are short and synchronous, the
/// fronts and benchmarks call them from synchronous code, and an actor would
/// add a suspension and a hop per call to the hot paths (a merge is ~50 µs).
/// Blocking is bounded by the busy timeout. Calls may nest on the same thread
/// (the lock is recursive); a nested ``write(_:)`` becomes a savepoint.
///
/// Opening a queue validates the file before anything is written to it, then
/// switches it to WAL and runs the pending migrations (see ``Migrator``).
///
/// The unchecked `Sendable` conformance is safe because `database`, a non-Sendable class, is only
/// touched while `lock` is held, and the closures given to `read`/`write`/`snapshot`
/// receive it for the duration of the call only (this type's contract: never keep
/// the `Database` or its statements outside the closure). `lock` is not `Sendable`
/// as a Swift type, but it is a pthread mutex, made to be called from any thread,
/// and it is an immutable `let` that no method replaces; `path` is an immutable `String`.
/// ``close()`` drops `database` under the lock, so no call sees it half closed.
public final class DatabaseQueue: @unchecked Sendable {  // safe: `database` is only touched while `lock` is held (see above)
    private let lock = RecursiveLock()
    /// The connection; `nil` once ``close()`` closed it.
    private var database: Database?

    /// The file path, or `:memory:`.
    public let path: String
    /// The migration versions this open applied, in order (none when the file was
    /// up to date, opened read-only, or migrated meanwhile by another process).
    public let migratedVersions: [Int]

    /// Opens the database at `path`, validates it against `migrator`, then migrates it.
    ///
    /// `prepare` runs on the new connection first, before anything reads the
    /// schema: it registers what the schema's SQL needs (an FTS5 tokenizer).
    /// A file that is not SQLite, or that `migrator` refuses, is left byte for
    /// byte as it was and the error says why.
    public init(
        path: String, configuration: Configuration = Configuration(), migrator: Migrator? = nil,
        prepare: (Database) throws -> Void = { _ in }
    ) throws {
        let database = try Database(path: path, configuration: configuration)
        try prepare(database)
        if let migrator {
            try migrator.validate(database)
        }
        try database.activateJournalMode()
        self.migratedVersions = try migrator.map { configuration.readOnly ? [] : try $0.migrate(database) } ?? []
        self.database = database
        self.path = path
    }

    /// Opens a private in-memory database (every queue gets its own), migrated by `migrator`.
    public static func inMemory(migrator: Migrator? = nil) throws -> DatabaseQueue {
        try DatabaseQueue(path: Database.inMemoryPath, migrator: migrator)
    }

    /// Runs `body` with the connection, outside any explicit transaction: for reads.
    public func read<Result>(_ body: (Database) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(try open())
    }

    /// Closes the connection now, on this thread: SQLite checkpoints the log into the
    /// database and removes it (the last connection to the file), instead of whenever the
    /// last reference to this queue goes, on whichever thread drops it. Every later call
    /// throws ``ResultCode/misuse``; closing twice does nothing. A service calls it when it
    /// stops; tests call it so a workload's last write happens before they look.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        database = nil
    }

    /// The open connection, or the error that this queue was closed (call with `lock` held).
    private func open() throws -> Database {
        guard let database else {
            throw SQLiteError(code: .misuse, message: "the connection was closed; open the database again", path: path)
        }
        return database
    }

    /// Runs `body` in one read transaction: every statement it runs sees the same
    /// moment of the database (one snapshot), even while another process commits.
    /// For reads of more than one statement (a page and its total, a report's figures).
    /// Inside another transaction, `body` simply runs in it.
    public func snapshot<Result>(_ body: (Database) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        let database = try open()
        if database.isInTransaction { return try body(database) }
        return try database.transaction(.deferred) { try body(database) }
    }

    /// Runs `body` in an IMMEDIATE transaction: it commits when `body` returns and
    /// rolls back all of its work when `body` throws. A file deleted or replaced
    /// since it was opened is refused before anything is written
    /// (``Database/checkFileIsInPlace()``).
    public func write<Result>(_ body: (Database) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        let database = try open()
        if !database.isInTransaction { try database.checkFileIsInPlace() }
        return try database.transaction(.immediate) { try body(database) }
    }

    /// ``write(_:)`` for a write that must not wait behind another connection's: it is
    /// refused at once (``ResultCode/busy``) instead of retrying for the busy timeout. For
    /// writes a command makes beside its answer (remembering the last search), which are
    /// worth less than the time a user would wait for them.
    public func writeWithoutWaiting<Result>(_ body: (Database) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        let database = try open()
        database.setBusyTimeout(.zero)
        defer { database.setBusyTimeout(database.configuration.busyTimeout) }
        if !database.isInTransaction { try database.checkFileIsInPlace() }
        return try database.transaction(.immediate) { try body(database) }
    }
}
