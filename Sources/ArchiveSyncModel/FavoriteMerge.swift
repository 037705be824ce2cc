/// The one merge rule of sync, used by every path that applies a change in Swift (a local
/// write, a change received from another database, the SQLite service). PostgreSQL's
/// service runs the same order as SQL (`PostgresSyncStorage`'s merge statement):
/// `MergeDifferentialTests` proves the two equal.
///
/// For each favorite ID, the state with the greatest ``ChangeStamp`` (hybrid logical time,
/// then device) wins, whether it says "stored with these fields" or "removed". The rule
/// picks the maximum of a total order, so it is commutative, associative and idempotent:
/// databases that have seen the same changes, in any order, any number of times, hold the
/// same favorites. Two different states with equal stamps can only come from one device
/// whose file was copied; they are ordered by their content (removed first, then by
/// fields), so even then every database picks the same one. docs/SYNC.md has examples.
public enum FavoriteMerge {
    /// Whether `incoming` replaces `current` (`nil`: nothing known of the favorite).
    public static func replaces(_ incoming: FavoriteChange, _ current: FavoriteChange?) -> Bool {
        guard let current else { return true }
        return replaces(incoming, heldStamp: current.stamp) { current.state }
    }

    /// The same rule for a holder that reads its state only when it must: `heldState`
    /// (the state held under `heldStamp`) is asked for on a tie of stamps alone.
    public static func replaces(
        _ incoming: FavoriteChange, heldStamp: ChangeStamp, heldState: () throws -> FavoriteChange.State
    ) rethrows -> Bool {
        if incoming.stamp != heldStamp { return incoming.stamp > heldStamp }
        return contentPrecedes(try heldState(), incoming.state)
    }

    /// The change that wins of `a` and `b` (of the same favorite).
    public static func winner(_ a: FavoriteChange, _ b: FavoriteChange) -> FavoriteChange {
        replaces(b, a) ? b : a
    }

    /// The tie-break of equal stamps: removed before stored, then the fields in order.
    static func contentPrecedes(_ lhs: FavoriteChange.State, _ rhs: FavoriteChange.State) -> Bool {
        switch (lhs, rhs) {
        case (.removed, .removed), (.stored, .removed): return false
        case (.removed, .stored): return true
        case (.stored(let a), .stored(let b)):
            // Bytes, not `String`'s order, which calls canonically equivalent texts equal.
            for (x, y) in [(a.photoUrl, b.photoUrl), (a.category, b.category), (a.dishName, b.dishName),
                           (a.shopName, b.shopName), (a.introduction, b.introduction)] where !x.utf8.elementsEqual(y.utf8) {
                return x.utf8.lexicographicallyPrecedes(y.utf8)
            }
            return a.storedAtMilliseconds < b.storedAtMilliseconds
        }
    }
}
