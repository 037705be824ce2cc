/// What a sync meets: another favorites database, or a sync service. A service's token is
/// never part of it (actions are logged): the front's environment holds it.
public enum SyncPeer: Sendable, Hashable, CustomStringConvertible {
    /// The favorites database at `path` (`archive sync PATH`).
    case file(path: String)
    /// The sync service at `url` (`archive sync --server URL`).
    case server(url: String)

    /// The path or the URL.
    public var description: String {
        switch self {
        case .file(let path): path
        case .server(let url): url
        }
    }
}
