import ArchiveStorage
import SQLite

/// FavoriteArchive's storage engine.
public final class EnginePeer: FavoritesPeer {
    public let database: ArchiveDatabase

    public init(path: String) throws {
        var configuration = Configuration()
        if Fixtures.commitsUnsynced { configuration.synchronous = .normal }
        database = try ArchiveDatabase(path: path, configuration: configuration)
    }

    public func importAll(_ data: WorkloadData) throws {
        try database.favorites.create(contentsOf: data.objects)
    }

    public func storedIDs(among ids: [Int]) throws -> Int {
        try database.favorites.storedIDs(among: ids).count
    }

    public func toggle(_ data: WorkloadData, number: Int, add: Bool) throws {
        if add {
            try database.favorites.create(data.objects[number])
        } else {
            try database.favorites.delete(id: data.objects[number].id)
        }
    }

    public func newestPage() throws -> Int {
        try database.favorites.page(after: nil, limit: 50).count
    }

    /// The favorites search: the first page of 50 matches.
    public func search(_ keyword: String) throws -> Int {
        try database.favorites.search(FavoritesQuery(keyword: keyword), after: nil, limit: 50).page.count
    }
}
