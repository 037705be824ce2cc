#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One SQLite connection. It owns its `sqlite3*` and closes it in `deinit`
/// (unless it was made with ``init(borrowing:path:)``).
///
/// A `Database` is deliberately not `Sendable`: it must have one owner at a
/// time. ``DatabaseQueue`` is that owner for the rest of the package; use a
/// `Database` directly only inside its `read`/`write` closures.
public final class Database {
    /// The file path, or `:memory:`.
    public let path: String
    /// The configuration the connection was opened with.
    public let configuration: Configuration
    let handle: OpaquePointer
    private var statementCache: [String: Statement] = [:]
    /// The work a step may take (``Configuration/workLimit``), refilled by each step.
    private var workBudget: WorkBudget?
    private var savepointDepth = 0

    /// The path that opens a private in-memory database.
    public static let inMemoryPath = ":memory:"

    /// Whether this is an in-memory database.
    public var isInMemory: Bool { path == Self.inMemoryPath || path.isEmpty }

    /// Opens (and, unless read-only, creates) the database at `path`.
    ///
    /// Opening changes nothing in the file: it sets the busy timeout, extended
    /// result codes, `synchronous` and `foreign_keys`, and checks that the file
    /// is a SQLite database (an empty file is a new one). The journal mode is
    /// switched to WAL later by ``activateJournalMode()``, once the caller has
    /// validated the file, because that writes the file's header.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= configuration.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags, configuration.vfsName)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError.from(connection, code: code, path: path)
            sqlite3_close_v2(connection)
            throw error
        }
        self.handle = connection
        self.path = path
        self.configuration = configuration
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, configuration.busyTimeoutMilliseconds)
        if !configuration.trustsSchema {
            csqlite_set_defensive(connection, 1)
            csqlite_set_trusted_schema(connection, 0)
        }
        if let limit = configuration.workLimit {
            let budget = WorkBudget(instructions: limit)
            budget.install(on: connection)
            workBudget = budget
        }
        // The first read of the file: fails with SQLITE_NOTADB on a file that is not SQLite.
        do {
            try execute("PRAGMA schema_version")
        } catch let error as SQLiteError where [ResultCode.cannotOpen, .readOnly, .permission].contains(error.resultCode) {
            guard let reason = Self.unwritableReason(path: path, readOnly: configuration.readOnly) else { throw error }
            throw SQLiteError(code: error.extendedResultCode, message: "\(error.message): \(reason)", sql: error.sql, path: path)
        }
        try execute("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
        try execute("PRAGMA foreign_keys = \(configuration.foreignKeys ? "ON" : "OFF")")
        var info = stat()
        if !isInMemory, stat(path, &info) == 0 {
            fileIdentity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            cPath = Array(path.utf8CString)
        }
    }

    // MARK: - The file in place

    /// The device and inode of the file as opened (`nil` in memory).
    private var fileIdentity: FileIdentity?
    /// ``path`` as a C string, made once: the check runs before every write.
    private var cPath: [CChar] = []

    private struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// Sets how long a statement retries while another connection holds the lock it
    /// needs (SQLite's busy handler); the configuration's ``Configuration/busyTimeout``
    /// is the one a connection opens with.
    public func setBusyTimeout(_ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: max(0, milliseconds)))
    }

    /// Throws ``ResultCode/readOnlyDatabaseMoved`` when the file at ``path`` is no
    /// longer the one this connection opened (deleted, moved, or another file
    /// renamed over it). A write then would go to a file nobody can open again,
    /// or leave a WAL that belongs to another database beside the new one.
    public func checkFileIsInPlace() throws {
        guard let fileIdentity else { return }
        var info = stat()
        let current = stat(cPath, &info) == 0 ? FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) : nil
        guard current != fileIdentity else { return }
        throw SQLiteError(
            code: .readOnlyDatabaseMoved,
            message: current == nil
                ? "the database file was deleted or moved while it was open; nothing was written (open it again)"
                : "another file replaced the database while it was open; nothing was written (open it again)",
            path: path)
    }

    /// Why a database at `path` cannot be opened for writing, when the file system says so.
    /// SQLite's own message ("unable to open database file") does not tell.
    static func unwritableReason(path: String, readOnly: Bool) -> String? {
        guard !readOnly, path != inMemoryPath, !path.isEmpty else { return nil }
        let folder = FilePathParts(path).directory
        if access(folder, W_OK) != 0 {
            return "the directory \(folder) is not writable (\(String(cString: strerror(errno)))); SQLite needs to create the -wal and -shm files beside the database, so use a database in a writable place"
        }
        if access(path, F_OK) == 0, access(path, W_OK) != 0 {
            return "the file is not writable (\(String(cString: strerror(errno)))); make it writable or use another database"
        }
        return nil
    }

    /// Whether ``deinit`` closes the connection (`false` for a borrowed one).
    private var ownsHandle = true

    /// Wraps a connection that something else opened and owns (GRDB, a C
    /// program): statements run on it and are finalized with this object, and the
    /// connection is left open. The caller keeps it open while this object lives,
    /// and uses it from one thread at a time, as its owner does.
    public init(borrowing connection: OpaquePointer, path: String) {
        handle = connection
        self.path = path
        configuration = Configuration()
        ownsHandle = false
    }

    deinit {
        statementCache.removeAll()
        // close_v2 defers the close until every statement is finalized; there is
        // nobody left to report an error to.
        if ownsHandle { sqlite3_close_v2(handle) }
    }

    /// Switches a file database to WAL, as configured. Writes the file header:
    /// call it after validating the file, never on one you must leave untouched.
    public func activateJournalMode() throws {
        guard configuration.walMode, !isInMemory, !configuration.readOnly else { return }
        let mode = try fetchOne("PRAGMA journal_mode = WAL") { try $0.column(String.self, at: 0) }
        guard mode?.lowercased() == "wal" else {
            throw SQLiteError(code: .error, message: "could not switch to WAL journal mode (SQLite kept \(mode ?? "?"))", path: path)
        }
    }

    // MARK: - Statements

    /// Prepares a statement that is not cached: for SQL run once.
    public func makeStatement(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError.from(handle, code: code == SQLITE_OK ? SQLITE_MISUSE : code, sql: sql, path: path)
        }
        return Statement(handle: statement, sql: sql, path: path, workBudget: workBudget)
    }

    /// Returns the prepared statement for `sql`, preparing and caching it on first use.
    ///
    /// Hot paths use this so that SQL is compiled once per connection.
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            throw SQLiteError.from(handle, code: code == SQLITE_OK ? SQLITE_MISUSE : code, sql: sql, path: path)
        }
        let statement = Statement(handle: prepared, sql: sql, path: path, workBudget: workBudget)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `body` with the cached statement for `sql`, bound to `values`, and resets it afterwards.
    public func withStatement<each Value: DatabaseValueConvertible, Result>(
        _ sql: String, _ values: repeat each Value, body: (Statement) throws -> Result
    ) throws -> Result {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(repeat each values)
        return try body(statement)
    }

    // MARK: - Executing

    /// Runs one or more `;`-separated statements without parameters.
    public func execute(_ sql: String) throws {
        workBudget?.refill()
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError.from(handle, code: code, sql: sql, path: path)
        }
    }

    /// Runs one statement with `values` bound to its parameters, through the statement cache.
    public func execute<each Value: DatabaseValueConvertible>(_ sql: String, _ values: repeat each Value) throws {
        try withStatement(sql, repeat each values) { try $0.run() }
    }

    /// Runs a query and maps every row with `row`.
    public func fetchAll<each Value: DatabaseValueConvertible, Row>(
        _ sql: String, _ values: repeat each Value, row: (Statement) throws -> Row
    ) throws -> [Row] {
        try withStatement(sql, repeat each values) { statement in
            var rows: [Row] = []
            while try statement.step() {
                rows.append(try row(statement))
            }
            return rows
        }
    }

    /// Runs a query and maps its first row with `row`, or returns `nil` when there is none.
    public func fetchOne<each Value: DatabaseValueConvertible, Row>(
        _ sql: String, _ values: repeat each Value, row: (Statement) throws -> Row
    ) throws -> Row? {
        try withStatement(sql, repeat each values) { statement in
            try statement.step() ? try row(statement) : nil
        }
    }

    // MARK: - Transactions

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: commits when it returns, rolls everything back when it throws.
    ///
    /// Writes should use `.immediate` (the default) so that the write lock is
    /// taken up front and concurrent writers wait for each other within the busy
    /// timeout. Called inside a transaction, it opens a savepoint instead, which
    /// rolls back only its own work.
    public func transaction<Result>(_ kind: TransactionKind = .immediate, _ body: () throws -> Result) throws -> Result {
        if isInTransaction {
            return try savepoint(body)
        }
        try runTransactionControl(kind.beginSQL)
        let result: Result
        do {
            result = try body()
            try runTransactionControl(Self.commitSQL)
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        return result
    }

    /// The SQL that ends a transaction by keeping its work.
    static let commitSQL = "COMMIT TRANSACTION"

    /// Runs `BEGIN` or `COMMIT` through a statement prepared once per connection:
    /// a write of one favorite costs a few microseconds less than compiling both
    /// again each time, as `sqlite3_exec` does.
    private func runTransactionControl(_ sql: String) throws {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.run()
    }

    private func savepoint<Result>(_ body: () throws -> Result) throws -> Result {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "nested_\(savepointDepth)"
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            if isInTransaction {
                try? execute("ROLLBACK TO SAVEPOINT \(name)")
                try? execute("RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
    }

    private func rollbackIgnoringErrors() {
        // SQLite may already have rolled back (e.g. after SQLITE_FULL); then there is nothing to undo.
        guard isInTransaction else { return }
        _ = sqlite3_exec(handle, "ROLLBACK TRANSACTION", nil, nil, nil)
    }

    // MARK: - Facts about the connection

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The rowid of the last inserted row.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// `PRAGMA data_version`: changes whenever another connection commits to the file.
    public func dataVersion() throws -> Int {
        try fetchOne("PRAGMA data_version") { try $0.column(Int.self, at: 0) } ?? 0
    }

    /// Whether a table (or view) of that name exists.
    public func tableExists(_ name: String) throws -> Bool {
        try fetchOne("SELECT 1 FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ?", name) { _ in true } ?? false
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound file, otherwise SQLite's list of problems.
    public func integrityCheck() throws -> [String] {
        try fetchAll("PRAGMA integrity_check") { try $0.column(String.self, at: 0) }
    }

    /// Reads the SQLite library's version, such as "3.40.1".
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}
