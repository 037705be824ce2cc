public import ArchiveSyncModel

/// The favorites store: the original app's Realm repository, made for large sets.
///
/// The original vocabulary is kept (all objects, create, delete); what a large
/// store needs is added: membership of a few IDs, counts, keyset pages and bulk
/// insert. Every method is synchronous and thread-safe; errors are
/// ``ArchiveStorageError`` for refused input and `SQLiteError` for the database.
public protocol StoredArchiveDataRepository: Sendable {
    /// Every stored object, newest first (the original `getAllObjectsFromRealm()`).
    /// Loads them all: prefer ``page(after:limit:)`` on large stores.
    func allObjects() throws -> [StoredArchiveObject]

    /// The stored object with this ID, or `nil`.
    func object(id: Int) throws -> StoredArchiveObject?

    /// Stores `object` (the original `createToRealm`): an upsert. Re-storing an ID
    /// refreshes its fields and keeps its original `storedAt`, so it keeps its
    /// place in the list. Invalid objects are refused before the database is touched.
    /// Returns `true` when the ID was not stored before, `false` when it was (and was refreshed).
    @discardableResult
    func create(_ object: StoredArchiveObject) throws -> Bool

    /// Stores every object `next` produces, until it returns `nil`, in one
    /// transaction: all or nothing. Each is validated as it comes; the first
    /// invalid one, or an error thrown by `next`, aborts the whole insert (the
    /// error names the object's index). `progress` is called with the count
    /// stored so far every 10,000 objects and at the end. Returns the count stored.
    ///
    /// This is the streaming form: an import reads its file inside `next`, so
    /// memory stays bounded whatever the number of objects.
    @discardableResult
    func create(from next: () throws -> StoredArchiveObject?, progress: (Int) -> Void) throws -> Int

    /// Removes the object with this ID (the original `deleteFromRealm`):
    /// `true` when it was stored, `false` when it was not (the original crashed).
    @discardableResult
    func delete(id: Int) throws -> Bool

    /// Whether an object with this ID is stored.
    func contains(id: Int) throws -> Bool

    /// Which of `ids` are stored. The search merge calls this for every search:
    /// its cost grows with `ids.count`, not with the number stored.
    func storedIDs(among ids: [Int]) throws -> Set<Int>

    /// The number of stored objects.
    func count() throws -> Int

    /// Up to `limit` objects, newest first, strictly after `cursor` (from the
    /// newest when `nil`). Stable when objects are added between pages.
    func page(after cursor: StoredArchivePageCursor?, limit: Int) throws -> StoredArchivePage

    /// Up to `limit` favorites matching `query` (see ``FavoritesQuery``), newest
    /// first, strictly after `cursor`: ``page(after:limit:)`` for a search, with
    /// the same cursors. An empty query is the plain page.
    func search(_ query: FavoritesQuery, after cursor: StoredArchivePageCursor?, limit: Int) throws -> FavoritesSearchResult

    /// Runs `body`, in which every read through this repository sees the same
    /// moment of the store (one read transaction), even while another process
    /// writes: a page and the total count read inside it agree.
    func snapshot<Result>(_ body: () throws -> Result) throws -> Result
}

extension StoredArchiveDataRepository {
    /// The search by reading every favorite (``allObjects()``): the semantics,
    /// for repositories without an index (test fakes).
    public func search(_ query: FavoritesQuery, after cursor: StoredArchivePageCursor?, limit: Int) throws -> FavoritesSearchResult {
        guard (1...StoredArchivePage.maximumLimit).contains(limit) else { throw ArchiveStorageError.invalidPageLimit(limit) }
        let matching = try allObjects().filter(query.matches)
        let after = matching.filter { object in
            guard let cursor else { return true }
            let key = (object.storedAt.millisecondsSince1970, object.id)
            return key < (cursor.storedAtMilliseconds, cursor.id)
        }
        let rows = Array(after.prefix(limit))
        let next = after.count > limit ? rows.last.map(StoredArchivePageCursor.init(after:)) : nil
        return FavoritesSearchResult(page: StoredArchivePage(objects: rows, nextCursor: next), matchCount: matching.count)
    }

    /// Stores every object of `objects` in one transaction: all or nothing (see ``create(from:progress:)``).
    @discardableResult
    public func create<Objects: Sequence<StoredArchiveObject>>(
        contentsOf objects: Objects, progress: (Int) -> Void = { _ in }
    ) throws -> Int {
        var iterator = objects.makeIterator()
        return try create(from: { iterator.next() }, progress: progress)
    }
}
