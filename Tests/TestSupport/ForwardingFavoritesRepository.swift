public import ArchiveStorage
public import ArchiveSyncModel

/// A test's favorites repository that passes every call to a real one, `base`:
/// a fake conforms and replaces only the calls it changes.
public protocol ForwardingFavoritesRepository: StoredArchiveDataRepository {
    /// The repository every call goes to unless the fake replaces it.
    var base: SQLiteStoredArchiveDataRepository { get }
}

extension ForwardingFavoritesRepository {
    /// Forwards to ``base``.
    public func allObjects() throws -> [StoredArchiveObject] { try base.allObjects() }
    /// Forwards to ``base``.
    public func object(id: Int) throws -> StoredArchiveObject? { try base.object(id: id) }
    /// Forwards to ``base``.
    public func create(_ object: StoredArchiveObject) throws -> Bool { try base.create(object) }
    /// Forwards to ``base``.
    public func create(from next: () throws -> StoredArchiveObject?, progress: (Int) -> Void) throws -> Int {
        try base.create(from: next, progress: progress)
    }
    /// Forwards to ``base``.
    public func delete(id: Int) throws -> Bool { try base.delete(id: id) }
    /// Forwards to ``base``.
    public func contains(id: Int) throws -> Bool { try base.contains(id: id) }
    /// Forwards to ``base``.
    public func storedIDs(among ids: [Int]) throws -> Set<Int> { try base.storedIDs(among: ids) }
    /// Forwards to ``base``.
    public func count() throws -> Int { try base.count() }
    /// Forwards to ``base``.
    public func page(after cursor: StoredArchivePageCursor?, limit: Int) throws -> StoredArchivePage {
        try base.page(after: cursor, limit: limit)
    }
    /// Forwards to ``base``.
    public func search(_ query: FavoritesQuery, after cursor: StoredArchivePageCursor?, limit: Int) throws -> FavoritesSearchResult {
        try base.search(query, after: cursor, limit: limit)
    }
    /// Forwards to ``base``.
    public func snapshot<Result>(_ body: () throws -> Result) throws -> Result { try base.snapshot(body) }
}
