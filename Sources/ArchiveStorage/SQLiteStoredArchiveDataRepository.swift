public import SQLite
import Foundation

/// ``StoredArchiveDataRepository`` on SQLite: the `archive_objects` table of an ``ArchiveDatabase``.
///
/// Every call reuses prepared statements and goes through the primary key or
/// the `(stored_at, id)` index; no call scans the table but ``count()`` and
/// ``allObjects()``.
public struct SQLiteStoredArchiveDataRepository: StoredArchiveDataRepository {
    /// The connection the repository reads and writes through.
    public let queue: DatabaseQueue

    /// A repository over a database already migrated with ``ArchiveMigrations``.
    public init(queue: DatabaseQueue) {
        self.queue = queue
    }

    // MARK: - SQL

    static let columns = "id, photo_url, category, dish_name, shop_name, introduction, stored_at"
    static let upsertSQL = """
        INSERT INTO archive_objects (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET
            photo_url = excluded.photo_url, category = excluded.category,
            dish_name = excluded.dish_name, shop_name = excluded.shop_name,
            introduction = excluded.introduction
        """
    static let firstPageSQL = """
        SELECT \(columns) FROM archive_objects ORDER BY stored_at DESC, id DESC LIMIT ?
        """
    static let nextPageSQL = """
        SELECT \(columns) FROM archive_objects WHERE (stored_at, id) < (?, ?)
        ORDER BY stored_at DESC, id DESC LIMIT ?
        """

    /// The largest number of IDs one membership query binds; larger requests are chunked.
    static let membershipChunk = 512

    /// `SELECT id ... WHERE id IN (?, ..., ?)` with `arity` parameters. Arity is
    /// always a power of two so that a handful of statements serve every request
    /// from the statement cache; the unused parameters repeat the last ID.
    static func membershipSQL(arity: Int) -> String {
        var sql = "SELECT id FROM archive_objects WHERE id IN (?"
        sql.reserveCapacity(64 + arity * 2)
        for _ in 1..<arity { sql += ",?" }
        return sql + ")"
    }

    private static let membershipSQLByExponent: [String] = (0...9).map { membershipSQL(arity: 1 << $0) }

    // MARK: - Reading

    public func allObjects() throws -> [StoredArchiveObject] {
        try queue.read { db in
            try db.fetchAll("SELECT \(Self.columns) FROM archive_objects ORDER BY stored_at DESC, id DESC", row: Self.object(from:))
        }
    }

    public func object(id: Int) throws -> StoredArchiveObject? {
        try queue.read { db in
            try db.fetchOne("SELECT \(Self.columns) FROM archive_objects WHERE id = ?", id, row: Self.object(from:))
        }
    }

    public func contains(id: Int) throws -> Bool {
        try queue.read { db in
            try db.fetchOne("SELECT 1 FROM archive_objects WHERE id = ?", id) { _ in true } ?? false
        }
    }

    public func count() throws -> Int {
        try queue.read { db in
            try db.fetchOne("SELECT count(*) FROM archive_objects") { try $0.column(Int.self, at: 0) } ?? 0
        }
    }

    public func storedIDs(among ids: [Int]) throws -> Set<Int> {
        guard !ids.isEmpty else { return [] }
        return try queue.read { db in
            var stored = Set<Int>(minimumCapacity: ids.count)
            var start = 0
            while start < ids.count {
                let end = min(start + Self.membershipChunk, ids.count)
                let exponent = Int.bitWidth - (end - start - 1).leadingZeroBitCount
                let arity = 1 << exponent
                let statement = try db.cachedStatement(Self.membershipSQLByExponent[exponent])
                defer { statement.reset() }
                var parameter: Int32 = 1
                for index in start..<end {
                    try statement.bind(ids[index], at: parameter)
                    parameter += 1
                }
                let last = ids[end - 1]
                while parameter <= Int32(arity) {
                    try statement.bind(last, at: parameter)
                    parameter += 1
                }
                while try statement.step() {
                    stored.insert(try statement.column(Int.self, at: 0))
                }
                start = end
            }
            return stored
        }
    }

    public func page(after cursor: StoredArchivePageCursor?, limit: Int) throws -> StoredArchivePage {
        guard (1...StoredArchivePage.maximumLimit).contains(limit) else {
            throw ArchiveStorageError.invalidPageLimit(limit)
        }
        let objects = try queue.read { db in
            if let cursor {
                return try db.fetchAll(Self.nextPageSQL, cursor.storedAtMilliseconds, cursor.id, limit, row: Self.object(from:))
            }
            return try db.fetchAll(Self.firstPageSQL, limit, row: Self.object(from:))
        }
        let next = objects.count == limit ? objects.last.map(StoredArchivePageCursor.init(after:)) : nil
        return StoredArchivePage(objects: objects, nextCursor: next)
    }

    // MARK: - Writing

    public func create(_ object: StoredArchiveObject) throws {
        try object.validate()
        try queue.write { db in
            let statement = try db.cachedStatement(Self.upsertSQL)
            defer { statement.reset() }
            try Self.bind(object, to: statement)
            try statement.run()
        }
    }

    @discardableResult
    public func create(from next: () throws -> StoredArchiveObject?, progress: (Int) -> Void) throws -> Int {
        try queue.write { db in
            let statement = try db.cachedStatement(Self.upsertSQL)
            defer { statement.reset() }
            var count = 0
            while let object = try next() {
                try object.validate(index: count)
                try Self.bind(object, to: statement)
                try statement.run()
                statement.reset()
                count += 1
                if count % 10_000 == 0 { progress(count) }
            }
            progress(count)
            return count
        }
    }

    @discardableResult
    public func delete(id: Int) throws -> Bool {
        try queue.write { db in
            try db.execute("DELETE FROM archive_objects WHERE id = ?", id)
            return db.changes > 0
        }
    }

    // MARK: - Rows

    private static func bind(_ object: StoredArchiveObject, to statement: Statement) throws {
        try statement.bind(object.id, at: 1)
        try statement.bind(object.photoUrl, at: 2)
        try statement.bind(object.category, at: 3)
        try statement.bind(object.dishName, at: 4)
        try statement.bind(object.shopName, at: 5)
        try statement.bind(object.introduction, at: 6)
        try statement.bind(object.storedAt.millisecondsSince1970, at: 7)
    }

    private static func object(from row: Statement) throws -> StoredArchiveObject {
        StoredArchiveObject(
            id: try row.int(at: 0),
            photoUrl: try row.string(at: 1),
            category: try row.string(at: 2),
            dishName: try row.string(at: 3),
            shopName: try row.string(at: 4),
            introduction: try row.string(at: 5),
            storedAt: Date(millisecondsSince1970: try row.int64(at: 6)))
    }
}
