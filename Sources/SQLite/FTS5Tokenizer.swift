internal import CSQLite

/// A tokenizer for SQLite's full-text index (FTS5), written in Swift.
///
/// Register it on a connection (``Database/register(_:)``) before anything
/// creates or reads an FTS5 table that names it (`tokenize = 'name'`): SQLite
/// keeps the tokenizer per connection, and a connection without it cannot
/// open such a table ("no such tokenizer").
public struct FTS5Tokenizer: Sendable {
    /// Why FTS5 asks for tokens.
    public enum Reason: Sendable, Hashable {
        /// A row is indexed or removed from the index.
        case document
        /// A quoted string or bare word of a `MATCH` query.
        case query
        /// The same, followed by `*`: the token is a prefix.
        case prefixQuery
        /// An auxiliary function (such as `highlight`) re-reads a row.
        case auxiliary
    }

    /// Calls `emit` with each token of `text` (UTF-8 as stored); `emit` returns
    /// `false` when FTS5 wants no more, and the function should then return.
    public typealias Tokenize = @Sendable (
        _ text: UnsafeRawBufferPointer, _ reason: Reason, _ emit: (UnsafeRawBufferPointer) -> Bool
    ) -> Void

    /// The name tables give as `tokenize = 'name'`.
    public let name: String
    /// The tokenizing function.
    public let tokenize: Tokenize

    /// A tokenizer named `name`.
    public init(name: String, tokenize: @escaping Tokenize) {
        self.name = name
        self.tokenize = tokenize
    }

    /// Registers the tokenizer on a connection that this package does not own
    /// (a benchmark peer's `sqlite3*` from C, GRDB's `sqliteConnection`).
    /// Throws ``SQLiteError`` when SQLite has no FTS5 or refuses the tokenizer.
    public func register(onConnection connection: OpaquePointer) throws {
        guard let api = csqlite_fts5_api(connection), let create = api.pointee.xCreateTokenizer else {
            throw SQLiteError(code: .error, message: "this SQLite has no FTS5: the favorites search index needs it (Debian's libsqlite3 has it)", sql: nil)
        }
        let box = Unmanaged.passRetained(Box(self)).toOpaque()
        var methods = fts5_tokenizer(xCreate: Self.create, xDelete: Self.delete, xTokenize: Self.tokenizeCallback)
        let code = create(api, name, box, &methods, Self.destroy)
        guard code == SQLITE_OK else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw SQLiteError.from(connection, code: code, path: nil)
        }
    }

    // MARK: - C callbacks

    /// What SQLite holds as the tokenizer's user data, released by `destroy`.
    private final class Box {
        let tokenizer: FTS5Tokenizer
        init(_ tokenizer: FTS5Tokenizer) { self.tokenizer = tokenizer }
    }

    /// The tokenizer instance of a table is the shared box itself: it has no per-table arguments.
    private static let create: @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafePointer<CChar>?>?, Int32, UnsafeMutablePointer<OpaquePointer?>?
    ) -> Int32 = { userData, _, _, instance in
        instance?.pointee = userData.map(OpaquePointer.init)
        return SQLITE_OK
    }

    private static let delete: @convention(c) (OpaquePointer?) -> Void = { _ in }

    private static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { userData in
        if let userData { Unmanaged<Box>.fromOpaque(userData).release() }
    }

    private static let tokenizeCallback: @convention(c) (
        OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32,
        (@convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32) -> Int32)?
    ) -> Int32 = { instance, context, flags, text, length, token in
        guard let instance, let token else { return SQLITE_MISUSE }
        let tokenizer = Unmanaged<Box>.fromOpaque(UnsafeRawPointer(instance)).takeUnretainedValue().tokenizer
        let reason: Reason
        if flags & FTS5_TOKENIZE_QUERY != 0 {
            reason = flags & FTS5_TOKENIZE_PREFIX != 0 ? .prefixQuery : .query
        } else if flags & FTS5_TOKENIZE_DOCUMENT != 0 {
            reason = .document
        } else {
            reason = .auxiliary
        }
        var result = SQLITE_OK
        tokenizer.tokenize(UnsafeRawBufferPointer(start: text, count: Int(max(0, length))), reason) { bytes in
            result = token(context, 0, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), 0, length)
            return result == SQLITE_OK
        }
        return result
    }
}

extension Database {
    /// Registers `tokenizer` on this connection (see ``FTS5Tokenizer``).
    public func register(_ tokenizer: FTS5Tokenizer) throws {
        try tokenizer.register(onConnection: handle)
    }
}
