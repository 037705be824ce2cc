import ArchiveStorage

/// The original app's merge: load every stored object, map them to IDs, and
/// test each result row with `Array.contains` (as it did with Realm).
public final class OriginalApproachPeer {
    let engine: EnginePeer

    public init(path: String) throws {
        engine = try EnginePeer(path: path)
    }

    public func storedIDs(among ids: [Int]) throws -> Int {
        let storedIDs = try engine.database.favorites.allObjects().map(\.id)
        return ids.filter { storedIDs.contains($0) }.count
    }
}
