import ArchiveStorage
import SQLite

/// The engine with its favorites search index dropped (the engine then skips it
/// when writing): what an import costs without the index, for the index's price.
public final class EngineWithoutIndexPeer: FavoritesPeer {
    let engine: EnginePeer

    public init(path: String) throws {
        do {
            _ = try ArchiveDatabase(path: path)  // creates and migrates the file
            let connection = try Database(path: path)
            for table in FavoritesSearchIndex.tables { try connection.execute("DROP TABLE IF EXISTS \(table)") }
        }
        engine = try EnginePeer(path: path)
    }

    public func importAll(_ data: WorkloadData) throws { try engine.importAll(data) }
    public func storedIDs(among ids: [Int]) throws -> Int { try engine.storedIDs(among: ids) }
    public func toggle(_ data: WorkloadData, number: Int, add: Bool) throws { try engine.toggle(data, number: number, add: add) }
    public func newestPage() throws -> Int { try engine.newestPage() }
}
