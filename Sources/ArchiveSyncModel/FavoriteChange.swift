/// One change to one favorite, as the change feed gives it and a sync applies it: the
/// favorite's whole state after the change (stored with these fields, or removed), and
/// the change's ``ChangeStamp``.
public struct FavoriteChange: Sendable, Hashable {
    /// What the favorite is after the change.
    public enum State: Sendable, Hashable {
        /// Stored, with these fields.
        case stored(StoredArchiveObject)
        /// Removed (a tombstone).
        case removed
    }

    /// The favorite's ID.
    public let id: Int
    /// When and where the change was made.
    public let stamp: ChangeStamp
    /// The state it sets.
    public let state: State

    /// A change of favorite `id` to `state`, stamped `stamp`. A stored state's object has the same ID.
    public init(id: Int, stamp: ChangeStamp, state: State) {
        self.id = id
        self.stamp = stamp
        self.state = state
    }

    /// Checks what every side checks before it applies a change, a pure function of the
    /// change: a positive ID, a stamp in range, and a stored state of the same favorite
    /// whose fields follow the rules (``StoredArchiveObject/check()``). Throws why not.
    public func check() throws(ChangeRefusal) {
        guard id > 0 else { throw ChangeRefusal(id: id, reason: "the ID must be a positive integer") }
        guard stamp.time.isValid else {
            throw ChangeRefusal(
                id: id,
                reason: "stamp \(stamp.time.rawValue) is out of range (0 to \(HybridTimestamp.maximum.rawValue), the year 4199): a broken clock, or a damaged file")
        }
        if case .stored(let object) = state {
            guard object.id == id else { throw ChangeRefusal(id: id, reason: "the change carries the fields of favorite \(object.id)") }
            do {
                try object.check()
            } catch {
                throw ChangeRefusal(id: id, reason: "field '\(error.field)' \(error.reason)")
            }
        }
    }
}
