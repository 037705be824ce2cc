import ArchiveStorage
import ArchiveSyncModel
import GRDB
import SQLite

/// What a Swift developer would write with GRDB 7: a record type, a
/// `DatabaseMigrator` with the same SQL, a WAL `DatabaseQueue`, the query interface.
///
/// Like the engine and raw C, it keeps the schema's search index (migration 0004)
/// in step with the favorites it writes, with the engine's own index work
/// (``FavoritesSearchIndexWriter``, on GRDB's connection, in GRDB's transaction):
/// runs built as a bulk import stores, a favorite stored alone noted as waiting.
/// GRDB has no index of this kind (its FTS5 support would cost what migration 0003
/// did: see BENCHMARKS.md).
public final class GRDBPeer: FavoritesPeer {
    struct Favorite: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "archive_objects"
        var id: Int64
        var photoUrl: String
        var category: String
        var dishName: String
        var shopName: String
        var introduction: String
        var storedAt: Int64

        enum CodingKeys: String, CodingKey {
            case id, category, introduction
            case photoUrl = "photo_url"
            case dishName = "dish_name"
            case shopName = "shop_name"
            case storedAt = "stored_at"
        }

        init(_ object: StoredArchiveObject) {
            id = Int64(object.id)
            photoUrl = object.photoUrl
            category = object.category
            dishName = object.dishName
            shopName = object.shopName
            introduction = object.introduction
            storedAt = object.storedAt.millisecondsSince1970
        }
    }

    let queue: GRDB.DatabaseQueue
    /// GRDB's one connection, as the engine's index code reads and writes it (made
    /// at the first write, kept so that its statements stay prepared, as GRDB's are).
    private var index: SQLite.Database?

    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        for migration in (try? ArchiveMigrations.all()) ?? [] {
            migrator.registerMigration(migration.fileName) { db in try db.execute(sql: migration.sql) }
        }
        return migrator
    }()

    public init(path: String) throws {
        var configuration = GRDB.Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // Migration 0003's FTS5 table (dropped by 0004) needs the engine's tokenizer.
            if let connection = db.sqliteConnection { try FavoritesSearchIndex.tokenizer.register(onConnection: connection) }
        }
        queue = try GRDB.DatabaseQueue(path: path, configuration: configuration)
        // After GRDB's own set-up, which sets NORMAL when it turns WAL on (prepareDatabase
        // runs before it): commits as the engine's, synced unless the run measures that.
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: Fixtures.commitsUnsynced ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL")
        }
        try Self.migrator.migrate(queue)
    }

    deinit {
        index = nil  // its statements finalized before GRDB closes the connection
    }

    /// The engine's view of GRDB's connection `db`.
    private func indexConnection(_ db: GRDB.Database) throws -> SQLite.Database {
        if let index { return index }
        guard let connection = db.sqliteConnection else { throw PeerError("GRDB's connection is closed") }
        let borrowed = SQLite.Database(borrowing: connection, path: queue.path)
        index = borrowed
        return borrowed
    }

    public func importAll(_ data: WorkloadData) throws {
        try queue.write { db in
            let index = try indexConnection(db)
            var writer = FavoritesSearchIndexWriter()
            for object in data.objects {
                // Stored the engine's way (a stored one is kept), then indexed if it is new.
                try Favorite(object).insert(db, onConflict: .ignore)
                guard db.changesCount > 0 else { continue }
                try writer.addStored(
                    id: object.id, texts: [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction],
                    in: index)
            }
            try writer.finish(in: index)
        }
    }

    public func storedIDs(among ids: [Int]) throws -> Int {
        try queue.read { db in
            try Int64.fetchSet(db, Favorite.select(Column("id")).filter(ids.contains(Column("id")))).count
        }
    }

    public func toggle(_ data: WorkloadData, number: Int, add: Bool) throws {
        let favorite = Favorite(data.objects[number])
        try queue.write { db in
            let index = try indexConnection(db)
            if add {
                try favorite.insert(db, onConflict: .ignore)
                if db.changesCount > 0 { try FavoritesSearchIndexWriter.stored(id: Int(favorite.id), in: index) }
            } else {
                _ = try Favorite.deleteOne(db, key: favorite.id)
                try FavoritesSearchIndexWriter.removed(id: Int(favorite.id), in: index)
            }
        }
    }

    public func newestPage() throws -> Int {
        try queue.read { db in
            try Favorite.order(Column("stored_at").desc, Column("id").desc).limit(50).fetchAll(db).count
        }
    }
}
