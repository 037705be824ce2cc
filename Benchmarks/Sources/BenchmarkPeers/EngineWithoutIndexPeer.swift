import ArchiveStorage
import SQLite

/// The engine with its favorites search index switched off (the triggers that keep
/// it dropped): what an import costs without the index, for the index's price.
public final class EngineWithoutIndexPeer: FavoritesPeer {
    let engine: EnginePeer

    public init(path: String) throws {
        engine = try EnginePeer(path: path)
        let connection = try Database(path: path)
        for event in ["insert", "delete", "update"] {
            try connection.execute("DROP TRIGGER IF EXISTS archive_objects_search_\(event)")
        }
    }

    public func importAll(_ data: WorkloadData) throws { try engine.importAll(data) }
    public func storedIDs(among ids: [Int]) throws -> Int { try engine.storedIDs(among: ids) }
    public func toggle(_ data: WorkloadData, number: Int, add: Bool) throws { try engine.toggle(data, number: number, add: add) }
    public func newestPage() throws -> Int { try engine.newestPage() }
}
