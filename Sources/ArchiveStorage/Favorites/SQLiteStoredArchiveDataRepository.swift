package import SQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ArchiveSyncModel

/// ``StoredArchiveDataRepository`` on SQLite: the `archive_objects` table of an ``ArchiveDatabase``.
///
/// Every call reuses prepared statements and goes through the primary key or
/// the `(stored_at, id)` index; no call scans the table but ``count()`` and
/// ``allObjects()``.
public struct SQLiteStoredArchiveDataRepository: StoredArchiveDataRepository {
    /// The connection the repository reads and writes through.
    package let queue: DatabaseQueue
    /// Whether the favorites search index (migrations 0004, 0005) is there to keep and to ask.
    /// It always is, unless someone dropped its tables: then writes skip it and searches scan.
    let hasSearchIndex: Bool

    /// Unix milliseconds now, for the stamps of this repository's changes.
    let wallClock: @Sendable () -> Int64

    /// A repository over a database already migrated with ``ArchiveMigrations``; its changes
    /// are stamped with `wallClock` (the system's, unless a test skews it).
    package init(queue: DatabaseQueue, wallClock: @escaping @Sendable () -> Int64 = WallClock.system) throws {
        self.queue = queue
        self.wallClock = wallClock
        hasSearchIndex = try queue.read { db in
            try [SearchRunStore.runsTable, SearchRunStore.blocksTable, SearchRunStore.pendingTable].allSatisfy(db.tableExists)
        }
    }

    // MARK: - SQL

    /// The columns of `archive_objects`, in the one order every statement lists,
    /// binds (parameters 1...7) and reads (columns 0...6) them.
    enum Column: Int32, CaseIterable {
        case id, photoUrl, category, dishName, shopName, introduction, storedAt

        /// The column's SQL name.
        var name: String {
            switch self {
            case .id: "id"
            case .photoUrl: "photo_url"
            case .category: "category"
            case .dishName: "dish_name"
            case .shopName: "shop_name"
            case .introduction: "introduction"
            case .storedAt: "stored_at"
            }
        }

        /// Its index in a row read with ``columns``.
        var index: Int32 { rawValue }
        /// Its parameter in ``insertSQL``.
        var parameter: Int32 { rawValue + 1 }
    }

    // Built by `reduce`, not the generic `joined(separator:)`, whose first call scans the
    // binary's protocol conformances: a cold `archive add` paid it here (`perf record`).
    static let columns = Column.allCases.dropFirst().reduce(Column.allCases[0].name) { $0 + ", " + $1.name }
    static let countSQL = "SELECT count(*) FROM archive_objects"
    static let placeholders = Column.allCases.dropFirst().reduce("?") { partial, _ in partial + ", ?" }
    /// Stores a new favorite, stamped by this device (stamp ?8, seq ?9: ``SyncLedger``); does
    /// nothing (no change counted) when the ID is stored.
    static let insertSQL = """
        INSERT INTO archive_objects (\(columns), stamp, device, seq) VALUES (\(placeholders), ?8, \(SyncLedger.localDeviceRef), ?9)
        ON CONFLICT (id) DO NOTHING
        """
    /// Refreshes a stored favorite's fields, keeping its `stored_at`, stamped as a new change
    /// (parameters as ``insertSQL``'s but 7).
    static let refreshSQL = """
        UPDATE archive_objects SET photo_url = ?2, category = ?3, dish_name = ?4, shop_name = ?5, introduction = ?6,
            stamp = ?8, device = \(SyncLedger.localDeviceRef), seq = ?9
        WHERE id = ?1
        """
    /// Stamps a stored favorite as a new change of this device without touching its fields
    /// (`?1` the ID, `?2` the stamp, `?3` the seq): stored again as it was.
    static let restampSQL = "UPDATE archive_objects SET stamp = ?2, device = \(SyncLedger.localDeviceRef), seq = ?3 WHERE id = ?1"
    static let firstPageSQL = """
        SELECT \(columns) FROM archive_objects ORDER BY stored_at DESC, id DESC LIMIT ?
        """
    static let nextPageSQL = """
        SELECT \(columns) FROM archive_objects WHERE (stored_at, id) < (?, ?)
        ORDER BY stored_at DESC, id DESC LIMIT ?
        """

    /// The exponents of the membership statements' arities: `2^0 ... 2^9` parameters.
    static let membershipExponents = 0...9
    /// The largest number of IDs one membership query binds (the largest arity);
    /// larger requests are chunked.
    static let membershipChunk = 1 << membershipExponents.upperBound

    /// `SELECT id ... WHERE id IN (?, ..., ?)` with `arity` parameters. Arity is
    /// always a power of two so that a handful of statements serve every request
    /// from the statement cache; the unused parameters repeat the last ID.
    static func membershipSQL(arity: Int) -> String {
        var sql = "SELECT id FROM archive_objects WHERE id IN (?"
        sql.reserveCapacity(64 + arity * 2)
        for _ in 1..<arity { sql += ",?" }
        return sql + ")"
    }

    private static let membershipSQLByExponent: [String] = membershipExponents.map { membershipSQL(arity: 1 << $0) }

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
        try queue.read(Self.count(in:))
    }

    /// How many favorites are stored, inside the caller's transaction.
    static func count(in db: Database) throws -> Int {
        try db.fetchOne(countSQL) { try $0.column(Int.self, at: 0) } ?? 0
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
        // One row more than asked: a next cursor is given only when a next row exists,
        // so an exactly full last page does not lead to an empty one.
        return try queue.read { db in
            // The rows are read in this closure's own loop: a builder captured by a
            // nested function costs an exclusivity check at every row it appends.
            let statement = try db.cachedStatement(cursor == nil ? Self.firstPageSQL : Self.nextPageSQL)
            defer { statement.reset() }
            if let cursor {
                try statement.bind(cursor.storedAtMilliseconds, cursor.id, limit + 1)
            } else {
                try statement.bind(limit + 1)
            }
            var builder = StoredArchivePage.Builder(capacity: limit + 1)
            while try statement.step() {
                try Self.appendRow(from: statement, to: &builder)
            }
            return builder.page(limit: limit)
        }
    }

    public func snapshot<Result>(_ body: () throws -> Result) throws -> Result {
        try queue.snapshot { _ in try body() }
    }

    // MARK: - Writing

    @discardableResult
    public func create(_ object: StoredArchiveObject) throws -> Bool {
        try object.validate()
        var batch: SearchRunBatch?
        return try queue.write { db in
            var ledger = try SyncLedger.load(in: db, wallClock: wallClock)
            let isNew = try store(object, in: db, insert: db.cachedStatement(Self.insertSQL), batch: &batch, ledger: &ledger)
            try ledger.save(in: db)
            return isNew
        }
    }

    @discardableResult
    public func create(from next: () throws -> StoredArchiveObject?, progress: (Int) -> Void) throws -> Int {
        try queue.write { db in
            var count = 0
            var batch: SearchRunBatch? = hasSearchIndex ? SearchRunBatch() : nil
            // Looked up once, not once a favorite (the cache hashes the SQL's text).
            let insert = try db.cachedStatement(Self.insertSQL)
            var ledger = try SyncLedger.load(in: db, wallClock: wallClock)
            while let object = try next() {
                try object.validate(index: count)
                try store(object, in: db, insert: insert, batch: &batch, ledger: &ledger)
                count += 1
                if count % 10_000 == 0 { progress(count) }
            }
            try batch?.finish(in: db)
            try ledger.save(in: db)
            progress(count)
            return count
        }
    }

    @discardableResult
    public func delete(id: Int) throws -> Bool {
        try queue.write { db in
            // The runs keep listing the favorite until they merge (searches check each
            // candidate); only a favorite still waiting for a run is forgotten.
            if hasSearchIndex { try SearchRunStore.removePending(id, in: db) }
            try db.execute("DELETE FROM archive_objects WHERE id = ?", id)
            guard db.changes > 0 else { return false }
            // The removal is a change like any other: a tombstone carries its stamp.
            var ledger = try SyncLedger.load(in: db, wallClock: wallClock)
            let stamp = ledger.nextLocalChange()
            try db.execute(SyncStore.tombstoneUpsertSQL, id, stamp.time.rawValue, SyncLedger.localDeviceRef, stamp.seq)
            ledger.take(stamp)
            try ledger.save(in: db)
            return true
        }
    }

    /// Stores one favorite inside the caller's transaction, and keeps the search
    /// index in step: a new favorite, or a stored one whose texts change (refreshed,
    /// keeping its `storedAt`), goes into the bulk store's `batch` of runs, or,
    /// stored alone, waits for a run. `insert` is the cached statement of
    /// ``insertSQL``. Returns whether the ID was new.
    @discardableResult
    private func store(
        _ object: StoredArchiveObject, in db: Database, insert: Statement, batch: inout SearchRunBatch?,
        ledger: inout SyncLedger
    ) throws -> Bool {
        // One statement for a new favorite (the common case).
        defer { insert.reset() }
        let stamp = ledger.nextLocalChange()
        try Self.bind(object, to: insert)
        try insert.bind(stamp.time.rawValue, at: 8)
        try insert.bind(stamp.seq, at: 9)
        try insert.run()
        let isNew = db.changes > 0
        if isNew {
            // Stored again after a removal: the favorite's row now says what the tombstone said.
            let forget = try db.cachedStatement(SyncStore.tombstoneDeleteSQL)
            defer { forget.reset() }
            try forget.bind(object.id, at: 1)
            try forget.run()
        } else {
            let new = [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction]
            if try Self.storedTexts(id: object.id, in: db) == new {
                // Stored again as it is: still a new change of this device, stamped now, so
                // that it wins over a removal another device made before it (the latest
                // acknowledged action wins); the texts and the search index stay.
                let restamp = try db.cachedStatement(Self.restampSQL)
                defer { restamp.reset() }
                try restamp.bind(object.id, at: 1)
                try restamp.bind(stamp.time.rawValue, at: 2)
                try restamp.bind(stamp.seq, at: 3)
                try restamp.run()
                ledger.take(stamp)
                return false
            }
            let refresh = try db.cachedStatement(Self.refreshSQL)
            defer { refresh.reset() }
            try Self.bind(object, to: refresh, storedAt: false)
            try refresh.bind(stamp.time.rawValue, at: 8)
            try refresh.bind(stamp.seq, at: 9)
            try refresh.run()
        }
        ledger.take(stamp)
        if hasSearchIndex {
            if batch != nil {
                try batch?.add(object, in: db)
            } else {
                try SearchRunStore.addPending(object.id, in: db)
            }
        }
        return isNew
    }

    /// Rebuilds the favorites search index from the stored favorites, in one
    /// transaction; returns how many favorites it holds.
    ///
    /// For favorites another program (the `sqlite3` shell) inserted or changed: the
    /// engine's writes keep the index in step, other programs' do not. Throws
    /// ``ArchiveStorageError/noSearchIndex(path:)`` when the index's tables were dropped.
    ///
    /// Favorites another program inserted have no place in the change feed either: they are
    /// stamped now, as changes of this device, so that the next sync sends them.
    public func rebuildSearchIndex() throws -> Int {
        guard hasSearchIndex else { throw ArchiveStorageError.noSearchIndex(path: queue.path) }
        return try queue.write { db in
            var ledger = try SyncLedger.load(in: db, wallClock: wallClock)
            let unfed = try db.fetchAll("SELECT id FROM archive_objects WHERE seq <= 0 ORDER BY stored_at, id") { try $0.int(at: 0) }
            for id in unfed {
                let stamp = ledger.nextLocalChange()
                try db.execute(
                    "UPDATE archive_objects SET stamp = ?, device = ?, seq = ? WHERE id = ?",
                    stamp.time.rawValue, SyncLedger.localDeviceRef, stamp.seq, id)
                ledger.take(stamp)
            }
            try ledger.save(in: db)
            return try SearchRunStore.rebuild(in: db)
        }
    }

    /// Builds runs of the favorites waiting for one, when at least
    /// ``SearchRunStore/pendingLimit`` wait (after migrations 0004 and 0005, every
    /// favorite stored before it); returns how many were indexed.
    @discardableResult
    func indexWaitingFavorites() throws -> Int {
        guard hasSearchIndex else { return 0 }
        return try queue.write { db in
            try SearchRunStore.pendingCount(in: db) >= SearchRunStore.pendingLimit ? SearchRunStore.indexPending(in: db) : 0
        }
    }

    /// The five texts of the stored favorite `id`, in ``Column``'s order.
    static func storedTexts(id: Int, in db: Database) throws -> [String]? {
        try db.fetchOne(
            "SELECT photo_url, category, dish_name, shop_name, introduction FROM archive_objects WHERE id = ?", id
        ) { row in (0..<5).map { text(row, at: Int32($0)) } }
    }

    // MARK: - Rows

    /// Binds `object` as parameters 1...7 (``Column/parameter``); without its `storedAt` for ``refreshSQL``.
    static func bind(_ object: StoredArchiveObject, to statement: Statement, storedAt: Bool = true) throws {
        try statement.bind(object.id, at: Column.id.parameter)
        try statement.bind(object.photoUrl, at: Column.photoUrl.parameter)
        try statement.bind(object.category, at: Column.category.parameter)
        try statement.bind(object.dishName, at: Column.dishName.parameter)
        try statement.bind(object.shopName, at: Column.shopName.parameter)
        try statement.bind(object.introduction, at: Column.introduction.parameter)
        if storedAt {
            try statement.bind(object.storedAt.millisecondsSince1970, at: Column.storedAt.parameter)
        }
    }

    /// The text columns of a row, in ``StoredArchiveRow/Field``'s order.
    static let textColumns: [Int32] = [Column.photoUrl, .category, .dishName, .shopName, .introduction].map(\.index)

    /// Copies the current row of a page query into `builder`: its integers, and its
    /// texts as bytes (no `String` is made; ``StoredArchiveRow`` decodes on access).
    static func appendRow(from row: Statement, to builder: inout StoredArchivePage.Builder) throws {
        let id = try row.int(at: Column.id.index)
        let storedAt = try row.int64(at: Column.storedAt.index)
        guard StoredArchiveObject.storedAtRange.contains(storedAt) else {
            throw ArchiveStorageError.storedAtOutOfRange(id: id, milliseconds: storedAt)
        }
        builder.beginRow(id: id, storedAtMilliseconds: storedAt)
        // In StoredArchiveRow.Field's order, which is the table's. A number another
        // program stored in a text column reads as its text (the table is not STRICT).
        for column in textColumns {
            row.withConvertedText(at: column) { builder.appendText($0) }
        }
        builder.endRow()
    }

    static func object(from row: Statement) throws -> StoredArchiveObject {
        let storedAt = try row.int64(at: Column.storedAt.index)
        guard StoredArchiveObject.storedAtRange.contains(storedAt) else {
            throw ArchiveStorageError.storedAtOutOfRange(id: try row.int(at: Column.id.index), milliseconds: storedAt)
        }
        return StoredArchiveObject(
            id: try row.int(at: Column.id.index),
            photoUrl: text(row, at: Column.photoUrl.index),
            category: text(row, at: Column.category.index),
            dishName: text(row, at: Column.dishName.index),
            shopName: text(row, at: Column.shopName.index),
            introduction: text(row, at: Column.introduction.index),
            storedAt: Date(millisecondsSince1970: storedAt))
    }

    /// A text column of the current row as a `String`: invalid UTF-8 repaired with
    /// U+FFFD, and a number another program stored there read as its text (the table
    /// is not STRICT), as a page reads it.
    private static func text(_ row: Statement, at column: Int32) -> String {
        row.withConvertedText(at: column) { String(decoding: $0, as: UTF8.self) }
    }
}
