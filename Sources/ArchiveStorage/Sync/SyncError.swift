/// Why a sync, or a change received by one, was refused. Nothing was written to the
/// database named unless the case says otherwise.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database has no `sync_state` row (someone deleted it).
    case stateMissing(path: String)
    /// The other database is this one, by another name.
    case sameDatabase(path: String, other: String)
    /// The other database carries this database's device ID: one is a byte copy of the other.
    case sameDevice(path: String, other: String, device: DeviceID)
    /// The other database cannot be written (a sync writes both).
    case readOnly(path: String, reason: String)
    /// A page of the change feed was asked with a limit outside `1...maximumPageLimit`.
    case invalidPageLimit(Int)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .stateMissing(let path):
            return "\(path) has lost its sync state (the sync_state table's row was deleted): nothing was synced; restore the file from a backup"
        case .sameDatabase(let path, let other):
            return "\(other) is \(path) itself, or one of its files, by another name: nothing to sync; pass another favorites database"
        case .sameDevice(let path, let other, let device):
            return "\(other) has the same device ID as \(path) (\(device)): one is a copy of the other's file, and sync tells databases apart by that ID; nothing was synced. Keep one of them, or export the copy's favorites (archive --database \(other) export -o FILE) and import them into a new database"
        case .readOnly(let path, let reason):
            return "cannot write to \(path) (\(reason)): a sync writes both databases; nothing was synced"
        case .invalidPageLimit(let limit):
            return "change feed page limit \(limit) is out of range: use 1 to \(ChangeFeedPage.maximumLimit)"
        }
    }
}
