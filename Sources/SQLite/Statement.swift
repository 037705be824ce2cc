// Public: the row readers used in hot loops are `@inlinable`, so they call SQLite directly in the caller.
public import CSQLite

/// A prepared SQLite statement. It owns its `sqlite3_stmt` and finalizes it in `deinit`.
///
/// A statement belongs to the ``Database`` that prepared it and is used only
/// under that connection's owner (see ``DatabaseQueue``); it is deliberately not
/// `Sendable`. Parameters are 1-based, columns 0-based, as in the C API.
public final class Statement {
    /// The SQL text the statement was prepared from.
    public let sql: String
    @usableFromInline let handle: OpaquePointer
    let path: String
    /// The connection's work budget, refilled before each step (``Configuration/workLimit``).
    private let workBudget: WorkBudget?

    /// One byte whose address stands for "no bytes" when binding an empty string.
    nonisolated(unsafe) static let emptyBytes: UnsafeMutableRawPointer = {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        pointer.storeBytes(of: 0, as: UInt8.self)
        return pointer
    }()

    init(handle: OpaquePointer, sql: String, path: String, workBudget: WorkBudget? = nil) {
        self.handle = handle
        self.sql = sql
        self.path = path
        self.workBudget = workBudget
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: - Binding

    /// Binds `value` to the 1-based parameter `index`.
    public func bind<Value: DatabaseValueConvertible>(_ value: Value, at index: Int32) throws {
        try value.bind(to: self, at: index)
    }

    /// Binds `bytes` as a BLOB (SQLite copies them, `SQLITE_TRANSIENT`); no bytes
    /// bind an empty BLOB, not NULL.
    func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            try check(sqlite3_bind_zeroblob(handle, index, 0))
            return
        }
        try check(sqlite3_bind_blob(handle, index, base, Int32(clamping: bytes.count), csqlite_transient()))
    }

    /// Binds `values` to parameters 1, 2, 3...; a count that does not match the SQL throws ``ResultCode/range``.
    public func bind<each Value: DatabaseValueConvertible>(_ values: repeat each Value) throws {
        var index: Int32 = 0
        for value in repeat each values {
            index += 1
            try value.bind(to: self, at: index)
        }
        let expected = sqlite3_bind_parameter_count(handle)
        guard index == expected else {
            throw SQLiteError(code: .range, message: "the statement has \(expected) parameters but \(index) values were given", sql: sql, path: path)
        }
    }

    /// The number of parameters (`?`) in the SQL.
    public var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// Resets the statement so that it can run again, keeping its bindings.
    ///
    /// Always reset a statement after use: a statement left mid-way keeps a read
    /// transaction open, which blocks checkpoints and pins an old snapshot.
    public func reset() {
        // sqlite3_reset returns the error of the last step, which was already reported.
        sqlite3_reset(handle)
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Stepping

    /// Runs one step: `true` when a row is available, `false` when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        workBudget?.refill()
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError.from(sqlite3_db_handle(handle), code: code, sql: sql, path: path)
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    public func run() throws {
        while try step() {}
    }

    // MARK: - Reading the current row

    /// The number of columns of the result.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of the 0-based column `index`.
    public func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "column \(index)"
    }

    /// Whether the 0-based column `index` of the current row is NULL.
    public func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Reads the 0-based column `index` of the current row as `Value`.
    public func column<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, at index: Int32) throws -> Value {
        try Value.read(from: self, at: index)
    }

    /// Reads an INTEGER column as `Int`: ``column(_:at:)`` without the generic dispatch, for hot loops.
    @inlinable
    public func int(at index: Int32) throws -> Int {
        Int(try int64(at: index))
    }

    /// Reads an INTEGER column as `Int64`, for hot loops.
    @inlinable
    public func int64(at index: Int32) throws -> Int64 {
        let type = sqlite3_column_type(handle, index)
        guard type == SQLITE_INTEGER else { throw typeMismatch(type, at: index, expected: "Int64") }
        return sqlite3_column_int64(handle, index)
    }

    /// Calls `body` with the column `index` of the current row as text bytes, the
    /// way SQLite converts it (a number becomes its decimal text, a BLOB its bytes,
    /// NULL no bytes), valid only during the call. For the TEXT columns of a table
    /// that is not `STRICT`, in hot loops: another program may have stored a number
    /// there, which reads as its text instead of failing the whole read, and no
    /// type is asked for per column.
    @inlinable
    public func withConvertedText<Result>(at index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        // The pointer first, then its length (SQLite's documented order).
        guard let bytes = sqlite3_column_text(handle, index) else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index))))
    }

    /// Calls `body` with the columns `indices` of the current row as text bytes,
    /// each as ``withConvertedText(at:_:)`` reads it, valid only during the call:
    /// for reading a row's several texts at once. Each column is read once, and
    /// SQLite keeps a column's bytes until the row changes or that same column is
    /// converted again, so no read moves another's bytes.
    public func withConvertedTexts<Result>(
        at indices: [Int32], _ body: ([UnsafeRawBufferPointer]) throws -> Result
    ) rethrows -> Result {
        try body(indices.map { index in
            // The pointer first, then its length (SQLite's documented order).
            guard let bytes = sqlite3_column_text(handle, index) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
            return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index)))
        })
    }

    /// Calls `body` with the column `index` of the current row as BLOB bytes (a
    /// TEXT value's bytes, NULL no bytes), valid only during the call: for reading
    /// blobs in hot loops without copying them.
    @inlinable
    public func withBlob<Result>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        // The pointer first, then its length (SQLite's documented order).
        guard let bytes = sqlite3_column_blob(handle, index) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index))))
    }

    /// The storage class of the 0-based column `index` of the current row.
    public func storageClass(at index: Int32) -> StorageClass {
        StorageClass(sqliteType: sqlite3_column_type(handle, index))
    }

    // MARK: - Helpers for value conversions

    func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw SQLiteError.from(sqlite3_db_handle(handle), code: code, sql: sql, path: path)
        }
    }

    func requireType(_ type: Int32, at index: Int32, for swiftType: String) throws {
        let actual = sqlite3_column_type(handle, index)
        guard actual == type else {
            throw mismatch(at: index, "holds \(Self.typeName(actual)), expected \(swiftType)")
        }
    }

    /// The error for a column of storage class `type` read as `expected` (kept out of line: the hot paths only test).
    @usableFromInline
    func typeMismatch(_ type: Int32, at index: Int32, expected: String) -> SQLiteError {
        mismatch(at: index, "holds \(Self.typeName(type)), expected \(expected)")
    }

    func mismatch(at index: Int32, _ what: String) -> SQLiteError {
        SQLiteError(code: .mismatch, message: "column \(index) (\(columnName(at: index))) \(what)", sql: sql, path: path)
    }

    static func typeName(_ type: Int32) -> String {
        StorageClass(sqliteType: type).rawValue
    }
}
