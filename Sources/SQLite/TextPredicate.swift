internal import CSQLite

/// A SQL function of two texts written in Swift, answering 1 or 0 (`NULL` when either is
/// `NULL`): `name(text, pattern)`, given each argument's UTF-8 bytes as SQLite holds them
/// (no copy, no `String`). Deterministic and innocuous: SQLite may factor it out of a loop,
/// and it can do nothing but answer. Added to a connection by ``Database/add(_:)``.
public struct TextPredicate: Sendable {
    /// The function's name in SQL.
    public let name: String
    /// Whether `text` satisfies the predicate for `pattern`.
    public let body: @Sendable (_ text: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>) -> Bool

    /// A predicate `name` answering `body`.
    public init(name: String, body: @escaping @Sendable (_ text: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>) -> Bool) {
        self.name = name
        self.body = body
    }

    /// The box SQLite holds as the function's user data (retained once, released by SQLite
    /// when the function is replaced or the connection closes).
    final class Box {
        let body: @Sendable (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
        init(_ body: @escaping @Sendable (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) { self.body = body }
    }
}

extension Database {
    /// Adds `predicate` to this connection's SQL functions.
    public func add(_ predicate: TextPredicate) throws {
        let box = Unmanaged.passRetained(TextPredicate.Box(predicate.body)).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, predicate.name, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, box,
            { context, _, arguments in
                guard let context, let arguments, let first = arguments[0], let second = arguments[1],
                      sqlite3_value_type(first) != SQLITE_NULL, sqlite3_value_type(second) != SQLITE_NULL,
                      let userData = sqlite3_user_data(context)
                else {
                    sqlite3_result_null(context)
                    return
                }
                let box = Unmanaged<TextPredicate.Box>.fromOpaque(userData).takeUnretainedValue()
                // sqlite3_value_text before sqlite3_value_bytes, as SQLite's documentation
                // asks: the byte count is then the text's.
                let text = sqlite3_value_text(first), textCount = Int(sqlite3_value_bytes(first))
                let pattern = sqlite3_value_text(second), patternCount = Int(sqlite3_value_bytes(second))
                let matched = box.body(
                    UnsafeBufferPointer(start: text, count: text == nil ? 0 : textCount),
                    UnsafeBufferPointer(start: pattern, count: pattern == nil ? 0 : patternCount))
                sqlite3_result_int(context, matched ? 1 : 0)
            },
            nil, nil,
            { userData in
                if let userData { Unmanaged<TextPredicate.Box>.fromOpaque(userData).release() }
            })
        guard code == SQLITE_OK else { throw SQLiteError.from(handle, code: code, path: path) }
    }
}
