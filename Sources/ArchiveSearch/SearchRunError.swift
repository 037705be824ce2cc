/// A search run's bytes that do not decode: a block or ID list damaged on disk
/// or written by something other than the engine.
///
/// The index only narrows a search, so a caller that meets this error can
/// still answer by scanning the favorites; the repair is to rebuild the index
/// (`archive reindex`).
public struct SearchRunError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the bytes.
    public enum Reason: Equatable, Sendable {
        /// The bytes end inside an entry's key, length or ID list.
        case truncated
        /// A variable-length integer runs past ten bytes or past 64 bits.
        case overlongInteger
        /// An entry's key is not greater than the key before it in the block.
        case keysOutOfOrder
        /// An ID is not greater than the ID before it in its list.
        case idsOutOfOrder
        /// A block's stored first key is not the key of its first entry.
        case firstKeyMismatch
        /// A block holds no entry.
        case emptyBlock
    }

    /// What is wrong.
    public let reason: Reason
    /// The offset in the block or list at which it was found.
    public let offset: Int

    /// An error for `reason`, found at byte `offset`.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// What failed, where, and what to do.
    public var description: String {
        let what = switch reason {
        case .truncated: "ends inside an entry"
        case .overlongInteger: "holds an integer longer than 64 bits"
        case .keysOutOfOrder: "lists its keys out of order"
        case .idsOutOfOrder: "lists its IDs out of order"
        case .firstKeyMismatch: "does not start with the key it is filed under"
        case .emptyBlock: "is empty"
        }
        return "the favorites search index is damaged: a block \(what) (byte \(offset)); rebuild it with `archive reindex`"
    }
}
