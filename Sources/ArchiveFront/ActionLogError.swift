/// Why the action log could not be opened.
public enum ActionLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path cannot be opened for appending.
    case cannotOpen(path: String, reason: String)
    /// The path is the database (or one of its journal files).
    case isTheDatabase(path: String, database: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot write the action log \(path): \(reason); pass --log-actions (or ARCHIVE_LOG_ACTIONS) a writable file"
        case .isTheDatabase(let path, let database):
            return "the action log \(path) is the database \(database) itself; logging there would destroy it: pass --log-actions another file"
        }
    }
}
