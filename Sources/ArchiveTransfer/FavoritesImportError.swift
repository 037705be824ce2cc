/// Why an import file was refused. Nothing was written: imports are all or nothing.
public enum FavoritesImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file cannot be opened or read.
    case cannotRead(path: String, reason: String)
    /// The file is not JSON of the import format, at this line.
    case syntax(line: Int, message: String)
    /// Record `index` (0-based) has a bad `field`.
    case invalidRecord(index: Int, field: String, reason: String)
    /// The new database at `path` could not be created.
    case cannotCreate(path: String, reason: String)
    /// Another process created a database at `path` while the import built a new one there.
    case databaseAppeared(path: String)
    /// The new database is in place at `path`, but its directory could not be synced: a
    /// power cut may take its name away again.
    case directoryNotSynced(path: String, reason: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .cannotRead(let path, let reason):
            return "cannot read \(path): \(reason); nothing was imported"
        case .syntax(let line, let message):
            return "line \(line): \(message); nothing was imported (the file must be a JSON array of favorites, as written by `archive export`)"
        case .invalidRecord(let index, let field, let reason):
            return "record \(index): field '\(field)' \(reason); nothing was imported"
        case .cannotCreate(let path, let reason):
            return "cannot create the database \(path): \(reason); nothing was imported"
        case .databaseAppeared(let path):
            return "another process created the database \(path) during the import, which built a new one there; "
                + "nothing was imported and that database is unchanged: run the import again to import into it"
        case .directoryNotSynced(let path, let reason):
            return "imported into the new database \(path), but its directory could not be synced (\(reason)): "
                + "a power cut may undo the import; run it again once the disk is healthy (it stores the same favorites)"
        }
    }
}
