/// The set operations a search over runs makes on sorted lists of favorite IDs.
public enum SearchIDSet {
    /// `ids` sorted ascending, each once.
    public static func sortedUnique(_ ids: [Int]) -> [Int] {
        var ids = ids
        sortUnique(&ids)
        return ids
    }

    /// Sorts `ids` ascending and keeps each once, in place (no second array).
    public static func sortUnique(_ ids: inout [Int]) {
        ids.sort()
        var kept = 0
        for index in ids.indices where index == 0 || ids[index] != ids[kept - 1] {
            ids[kept] = ids[index]
            kept += 1
        }
        ids.removeLast(ids.count - kept)
    }

    /// The IDs in both `left` and `right` (each ascending, each once), ascending.
    public static func intersection(_ left: [Int], _ right: [Int]) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(min(left.count, right.count))
        var i = 0
        var j = 0
        while i < left.count, j < right.count {
            if left[i] < right[j] {
                i += 1
            } else if left[i] > right[j] {
                j += 1
            } else {
                result.append(left[i])
                i += 1
                j += 1
            }
        }
        return result
    }
}
