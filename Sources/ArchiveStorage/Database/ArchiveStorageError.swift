import SQLite

/// A request the archive storage refuses before touching the database.
public enum ArchiveStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An object's field breaks a rule of ``StoredArchiveObject/validate()``.
    /// `index` is the position in a bulk insert, when the object came from one.
    case invalidObject(index: Int?, id: Int, field: String, reason: String)
    /// A page was asked with a limit outside `1...StoredArchivePage.maximumLimit`.
    case invalidPageLimit(Int)
    /// A page cursor that is not of the form `STOREDAT_MS:ID`.
    case invalidCursor(String)
    /// A stored row whose `stored_at` is outside ``StoredArchiveObject/storedAtRange``
    /// (written by hand or by an older build).
    case storedAtOutOfRange(id: Int, milliseconds: Int64)
    /// A command that only reads was given a database file that does not exist.
    case noDatabase(path: String)
    /// A database path that is empty or names something other than a regular file.
    case notADatabaseFile(path: String, kind: String)
    /// A database file name too long for the files SQLite makes beside it
    /// (`NAME-journal`, `NAME-wal`, `NAME-shm`) on its file system.
    case nameTooLong(path: String, bytes: Int, needed: String, limit: Int)
    /// A database file with more than one hard link: SQLite keeps a write-ahead log per
    /// name, so a write through one name can be lost to a reader of the other.
    case hardLinked(path: String, links: Int)
    /// A database that is not trusted (a sync peer) holds a view or a trigger (`kind`,
    /// `name`): archive makes none, and one could run without end or write elsewhere
    /// whenever the sync reads or writes the file.
    case untrustedSchema(path: String, kind: String, name: String)
    /// The favorites search index was asked to be rebuilt in a database whose
    /// index table was dropped (searches then read every favorite).
    case noSearchIndex(path: String)
    /// The favorites search index numbered its runs up to ``SearchRunStore/maximumRun``
    /// (or a damaged run bears a larger number): no run can be written after it.
    case searchRunsExhausted(path: String, lastRun: Int64)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .invalidObject(let index, let id, let field, let reason):
            let position = index.map { "record \($0) " } ?? ""
            return "\(position)(id \(id)): field '\(field)' \(reason); nothing was written"
        case .invalidPageLimit(let limit):
            return "page limit \(limit) is out of range: use 1 to \(StoredArchivePage.maximumLimit)"
        case .invalidCursor(let text):
            return "'\(text)' is not a page cursor: pass the cursor printed with the previous page (STOREDAT_MS:ID)"
        case .storedAtOutOfRange(let id, let milliseconds):
            return "favorite \(id) has stored_at \(milliseconds) ms, outside the years 0001 to 9999; remove it (archive remove \(id)) and store it again"
        case .noDatabase(let path):
            return "no database at \(path); nothing was created (check --database or ARCHIVE_DATABASE; `archive add` creates one)"
        case .notADatabaseFile(let path, let kind):
            return DatabasePath.Problem.notADatabaseFile(path: path, kind: kind).description
        case .nameTooLong(let path, let bytes, let needed, let limit):
            return DatabasePath.Problem.nameTooLong(path: path, bytes: bytes, needed: needed, limit: limit).description
        case .hardLinked(let path, let links):
            return DatabasePath.Problem.hardLinked(path: path, links: links).description
        case .untrustedSchema(let path, let kind, let name):
            return "\(path) holds a \(kind) named \(name.debugDescription), which archive never makes (another program added it): it would run whenever the file is read or written; nothing was opened or synced. Sync with a database archive made, or export this one's favorites with that program removed"
        case .noSearchIndex(let path):
            return "\(path) has no favorites search index (its tables archive_search_runs, archive_search_blocks and archive_search_pending were dropped): searches read every favorite, and there is nothing to rebuild"
        case .searchRunsExhausted(let path, let lastRun):
            return "the favorites search index of \(path) has numbered its runs up to \(lastRun), past the last it can file (\(SearchRunStore.maximumRun)); nothing was written: rebuild it with `archive reindex`, which numbers them from 1"
        }
    }
}
