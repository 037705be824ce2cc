/// Why a sync request or answer cannot be used as it is.
public enum SyncWireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Change number `index` of a batch (favorite `id`) breaks a rule.
    case invalidChange(index: Int, id: Int, reason: String)
    /// A batch names favorite `id` more than once (changes `first` and `second`).
    case duplicateID(id: Int, first: Int, second: Int)

    /// What is wrong and what to do.
    public var description: String {
        switch self {
        case .invalidChange(let index, let id, let reason):
            "change \(index) (favorite \(id)) is invalid: \(reason); nothing of the batch was applied"
        case .duplicateID(let id, let first, let second):
            "changes \(first) and \(second) are both for favorite \(id); send one change per favorite per batch (the latest); nothing of the batch was applied"
        }
    }
}
