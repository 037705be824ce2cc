import ArchiveStorage
import GRDB

/// What a Swift developer would write with GRDB 7: a record type, a
/// `DatabaseMigrator` with the same SQL, a WAL `DatabaseQueue`, the query interface.
///
/// Like the engine and raw C, it keeps the schema's search index in step with the
/// favorites it writes: a new favorite's index row after its insert, the 'delete'
/// command with the stored texts before a delete, FTS5's `optimize` after a bulk
/// import. (GRDB's own `synchronize(withTable:)` would do it with triggers, whose
/// statement savepoints make FTS5 write a segment per row: see migration 0003. The
/// peer takes the faster way, the engine's statements (``FavoritesSearchIndex``)
/// through cached statements.)
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

    let queue: DatabaseQueue

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
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // The schema's search index is written through the engine's FTS5 tokenizer.
            if let connection = db.sqliteConnection { try FavoritesSearchIndex.tokenizer.register(onConnection: connection) }
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(queue)
    }

    public func importAll(_ data: WorkloadData) throws {
        try queue.write { db in
            for object in data.objects { try Self.store(Favorite(object), in: db) }
            if data.objects.count >= FavoritesSearchIndex.optimizeAfter { try db.execute(sql: FavoritesSearchIndex.optimizeSQL) }
        }
    }

    /// Stores a favorite the engine's way (a stored one is kept), then indexes it if it is new.
    static func store(_ favorite: Favorite, in db: Database) throws {
        try favorite.insert(db, onConflict: .ignore)
        guard db.changesCount > 0 else { return }
        try db.cachedStatement(sql: FavoritesSearchIndex.insertSQL).execute(arguments: [
            favorite.id, favorite.photoUrl, favorite.category, favorite.dishName, favorite.shopName, favorite.introduction,
        ])
    }

    /// Takes a favorite out of the index with its stored texts, then deletes it.
    static func delete(id: Int64, in db: Database) throws {
        guard let stored = try Favorite.fetchOne(db, key: id) else { return }
        try db.cachedStatement(sql: FavoritesSearchIndex.deleteSQL).execute(arguments: [
            stored.id, stored.photoUrl, stored.category, stored.dishName, stored.shopName, stored.introduction,
        ])
        _ = try stored.delete(db)
    }

    public func storedIDs(among ids: [Int]) throws -> Int {
        try queue.read { db in
            try Int64.fetchSet(db, Favorite.select(Column("id")).filter(ids.contains(Column("id")))).count
        }
    }

    public func toggle(_ data: WorkloadData, number: Int, add: Bool) throws {
        let favorite = Favorite(data.objects[number])
        try queue.write { db in
            if add {
                try Self.store(favorite, in: db)
            } else {
                try Self.delete(id: favorite.id, in: db)
            }
        }
    }

    public func newestPage() throws -> Int {
        try queue.read { db in
            try Favorite.order(Column("stored_at").desc, Column("id").desc).limit(50).fetchAll(db).count
        }
    }
}
