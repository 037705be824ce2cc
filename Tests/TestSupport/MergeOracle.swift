import ArchiveStorage
public import ArchiveSyncModel

/// The convergence harnesses' oracle (the engine's and the service's).
public enum MergeOracle {
    /// The oracle's rule, written apart from ``FavoriteMerge`` from docs/SYNC.md's words:
    /// the greater (time, device bytes) wins; equal stamps prefer stored over removed, then
    /// the greater fields' UTF-8 bytes, then the later storedAt.
    public static func later(_ a: FavoriteChange, _ b: FavoriteChange) -> FavoriteChange {
        /// A signed integer's bytes in an order that compares as the integer does.
        func ordered(_ value: Int64) -> [UInt8] {
            withUnsafeBytes(of: (UInt64(bitPattern: value) ^ (1 << 63)).bigEndian, Array.init)
        }
        func key(_ change: FavoriteChange) -> [[UInt8]] {
            var key = [ordered(change.stamp.time.rawValue), change.stamp.device.bytes]
            switch change.state {
            case .removed:
                key.append([0])
            case .stored(let object):
                key.append([1])
                key += [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction].map { Array($0.utf8) }
                key.append(ordered(object.storedAt.millisecondsSince1970))
            }
            return key
        }
        return key(b).lexicographicallyPrecedes(key(a)) { $0.lexicographicallyPrecedes($1) } ? a : b
    }

    /// The favorites the merge rule leaves from `changes` (every change any device made), by ID.
    public static func answer(_ changes: [FavoriteChange]) -> (favorites: [Int: StoredArchiveObject], removed: Int) {
        var latest: [Int: FavoriteChange] = [:]
        for change in changes {
            latest[change.id] = latest[change.id].map { later($0, change) } ?? change
        }
        var favorites: [Int: StoredArchiveObject] = [:]
        for change in latest.values {
            if case .stored(let object) = change.state { favorites[change.id] = object }
        }
        return (favorites, latest.count - favorites.count)
    }
}
