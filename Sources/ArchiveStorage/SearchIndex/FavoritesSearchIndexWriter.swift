public import SQLite

/// Keeps the favorites search index in step for a program that writes an
/// archive's favorites through its own connection (the benchmarks' peers: raw C,
/// GRDB), with the engine's own index work, in the caller's transaction.
///
/// ```swift
/// var writer = FavoritesSearchIndexWriter()
/// // in one transaction, after each new favorite's INSERT:
/// try writer.addStored(id: id, texts: [photoUrl, category, dishName, shopName, introduction], in: db)
/// try writer.finish(in: db)
/// ```
/// A favorite stored or removed alone is ``stored(id:in:)`` / ``removed(id:in:)``.
public struct FavoritesSearchIndexWriter {
    private var batch = SearchRunBatch()

    /// A writer for one bulk store.
    public init() {}

    /// Adds a favorite the bulk store just inserted (or changed): its ID and its
    /// five texts (photo URL, category, dish name, shop name, introduction).
    public mutating func addStored(id: Int, texts: [String], in db: Database) throws {
        try batch.add(id: id, texts: texts, in: db)
    }

    /// ``addStored(id:texts:in:)`` for texts held as UTF-8 bytes (a C program's
    /// rows); the bytes are copied, so they need to live only for the call.
    public mutating func addStored(id: Int, utf8Texts texts: [UnsafeRawBufferPointer], in db: Database) throws {
        try batch.add(id: id, utf8Texts: texts, in: db)
    }

    /// Writes what the bulk store added since the last run; call once, before commit.
    public mutating func finish(in db: Database) throws {
        try batch.finish(in: db)
    }

    /// Notes a favorite stored (or changed) alone, as the engine's single store does.
    public static func stored(id: Int, in db: Database) throws {
        try SearchRunStore.addPending(id, in: db)
    }

    /// Notes a favorite removed alone, as the engine's remove does (before or after its DELETE).
    public static func removed(id: Int, in db: Database) throws {
        try SearchRunStore.removePending(id, in: db)
    }
}
