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
}
