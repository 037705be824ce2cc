public import ArchiveSyncModel

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
    /// One step of SQLite's work on the peer file at `path` ran past its bound
    /// (``SyncSession/peerConfiguration``): something in the file runs without end.
    case peerRunsAway(path: String)
    /// A row of the change feed of the database at `path` cannot be read as a change.
    case damagedRow(path: String, id: Int, reason: String)
    /// The database at `path` holds a change to favorite `id` made by `device`, stamped
    /// `ahead` milliseconds ahead of this machine's clock: more than
    /// ``HybridTimestamp/maximumLead``. Nothing was synced.
    case stampAhead(path: String, id: Int, device: DeviceID, ahead: Int64)

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
        case .stampAhead(let path, let id, let device, let ahead):
            return "\(path) holds a change to favorite \(id) stamped \(HybridTimestamp.describe(lead: ahead)) ahead of this machine's clock by device \(device) (more than the \(HybridTimestamp.describe(lead: HybridTimestamp.maximumLead)) a clock may be ahead): that device's clock is wrong, or this machine's is behind; nothing was synced. Correct the wrong clock and sync again; changes a database made while its clock was far ahead keep their stamps: export its favorites (archive export) and import them into a new database"
        case .peerRunsAway(let path):
            return "reading or writing \(path) ran past the work one step may take (a query over its tables does not end: the file was made or changed by another program); nothing more was synced. Sync with a database archive made"
        case .damagedRow(let path, let id, let reason):
            return "favorite \(id) in \(path) cannot be synced: \(reason) (another program changed the file); nothing more was synced. Remove the favorite there (archive --database \(path) remove \(id)) and store it again"
        case .invalidPageLimit(let limit):
            return "change feed page limit \(limit) is out of range: use 1 to \(ChangeFeedPage.maximumLimit)"
        }
    }
}
