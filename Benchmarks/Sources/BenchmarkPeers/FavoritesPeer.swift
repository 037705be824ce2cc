/// One implementation of the benchmark workload: the engine or one of its peers.
public protocol FavoritesPeer: AnyObject {
    /// Opens the file at `path` (creating its schema when new), including the migration check.
    init(path: String) throws
    /// Stores every favorite of `data` in one transaction.
    func importAll(_ data: WorkloadData) throws
    /// Which of `ids` are stored.
    func storedIDs(among ids: [Int]) throws -> Int
    /// Stores (or deletes) the favorite `number` of the workload, in its own committed transaction.
    func toggle(_ data: WorkloadData, number: Int, add: Bool) throws
    /// Reads the 50 newest favorites.
    func newestPage() throws -> Int
}

/// A peer failed.
public struct PeerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
