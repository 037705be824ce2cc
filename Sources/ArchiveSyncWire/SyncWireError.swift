import ArchiveSyncModel

/// Why a sync request or answer cannot be used as it is.
public enum SyncWireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Change number `index` of a batch (favorite `id`) breaks a rule.
    case invalidChange(index: Int, id: Int, reason: String)
    /// A batch names favorite `id` more than once (changes `first` and `second`).
    case duplicateID(id: Int, first: Int, second: Int)
    /// Change number `index` (favorite `id`, made by `device`) is stamped `ahead`
    /// milliseconds ahead of the receiver's clock, more than ``HybridTimestamp/maximumLead``.
    case stampAhead(index: Int, id: Int, device: String, ahead: Int64)

    /// What is wrong and what to do.
    public var description: String {
        switch self {
        case .invalidChange(let index, let id, let reason):
            "change \(index) (favorite \(id)) is invalid: \(reason); nothing of the batch was applied"
        case .stampAhead(let index, let id, let device, let ahead):
            "change \(index) (favorite \(id)) is stamped \(HybridTimestamp.describe(lead: ahead)) ahead of the server's clock by device \(device), more than the \(HybridTimestamp.describe(lead: HybridTimestamp.maximumLead)) a clock may be ahead: that device's clock is wrong; nothing of the batch was applied. Correct its clock; changes it made while its clock was far ahead keep their stamps: export its favorites (archive export) and import them into a new database"
        case .duplicateID(let id, let first, let second):
            "changes \(first) and \(second) are both for favorite \(id); send one change per favorite per batch (the latest); nothing of the batch was applied"
        }
    }
}
