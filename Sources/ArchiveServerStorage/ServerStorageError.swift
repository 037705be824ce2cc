/// Why the service's database refused a user operation.
public enum ServerStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A user name that is empty, too long, has characters other than letters, digits, `.`,
    /// `_`, `-`, or no letter or digit.
    case invalidUserName(String)
    /// `users add` of a name already taken.
    case userExists(String)
    /// A user operation on a name that does not exist.
    case noSuchUser(String)
    /// A device label that is empty, too long, or not letters, digits, `.`, `_`, `-`.
    case invalidDeviceLabel(String)
    /// `devices add` of a label the user has already.
    case deviceExists(user: String, label: String)
    /// A device operation on a label the user does not have.
    case noSuchDevice(user: String, label: String)
    /// A request whose device ID the token does not serve (``DeviceBinding/refused``): the
    /// token is bound to another device, or this device has a token of its own (`403`).
    case tokenOfAnotherDevice(user: String, label: String)
    /// The file at `path` is not the sync service's database.
    case notAServiceDatabase(path: String, reason: String)
    /// A row of the service's database that cannot be read back.
    case damagedRow(String)
    /// A push made after pulling only to `seen`, before tombstones up to `collected` were dropped.
    case stalePush(seen: Int64, collected: Int64)
    /// A pull from `cursor`, past the feed's start but before `collected`: the device last
    /// synced before removals every other device has since applied were dropped (it was
    /// revoked and forgotten, or its file restored from an old copy). Its favorites may
    /// hold some of those removed favorites, which a sync would bring back (`410`).
    case forgottenDevice(cursor: Int64, collected: Int64)
    /// The database cannot be reached or did not answer in time (PostgreSQL restarting, the
    /// pool without a connection, a lock held past the request's deadline): nothing of the
    /// request was acknowledged; the same request may be sent again (`503`).
    case unavailable(String)
    /// The database's disk is full: nothing of the request was written; the service
    /// resumes once space is freed (`507`).
    case storageFull(String)

    /// What failed and what to do.
    public var description: String {
        switch self {
        case .invalidUserName(let name):
            "invalid user name \(name.prefix(80).debugDescription): use 1 to 64 letters, digits, '.', '_' or '-', with a letter or a digit (names ignore case)"
        case .userExists(let name):
            "user \(name) exists already: a new device of theirs gets a token of its own with `archive-server devices add \(name) LABEL` (`users token \(name)` would stop every token of \(name) and forget all its devices)"
        case .noSuchUser(let name):
            "no user named \(name): `archive-server users list` shows them"
        case .invalidDeviceLabel(let label):
            "invalid device label \(label.prefix(80).debugDescription): use 1 to 64 letters, digits, '.', '_' or '-', with a letter or a digit (labels ignore case)"
        case .deviceExists(let user, let label):
            "\(user) has a device labelled \(label) already: `archive-server devices list \(user)` shows them; revoke it first, or choose another label"
        case .noSuchDevice(let user, let label):
            "\(user) has no device labelled \(label): `archive-server devices list \(user)` shows them"
        case .tokenOfAnotherDevice(let user, let label):
            "the token \(label) of \(user) belongs to another device (or this device has a token of its own): each device signs in with its own token (archive-server devices add \(user) LABEL)"
        case .notAServiceDatabase(let path, let reason):
            "\(path) is not an archive-server database (\(reason)); give --database a new path or the service's own file"
        case .stalePush(let seen, let collected):
            "this push was made having pulled to \(seen), and removals up to \(collected) have been dropped since: pull, then push again"
        case .forgottenDevice(let cursor, let collected):
            "this device last synced at \(cursor) of the feed, and removals up to \(collected) have been dropped since (it was signed out and forgotten, or its database restored from an old copy): a sync could bring removed favorites back, so nothing was synced; start this device from a new database (archive export, then archive import into a new file) and sync that"
        case .damagedRow(let reason):
            "the service's database is damaged: \(reason); restore it from a backup"
        case .unavailable(let reason):
            "the service's database is unavailable: \(reason); nothing was acknowledged: send the same request again shortly"
        case .storageFull(let reason):
            "the service's disk is full: \(reason); nothing was written: try again once its operator has freed space"
        }
    }
}
