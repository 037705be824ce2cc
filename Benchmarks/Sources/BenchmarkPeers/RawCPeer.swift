import ArchiveStorage
import SQLite
import CRawSQLitePeer
import Foundation

/// The practical limit: the engine's SQL and pragmas called from C.
public final class RawCPeer: FavoritesPeer {
    let peer: OpaquePointer
    /// The search index's side of the peer (see ``RawCIndex``), which C calls back.
    private let index: RawCIndex
    private var found = [Int64](repeating: 0, count: 64)
    private var scratch = [CChar](repeating: 0, count: 1 << 16)

    public init(path: String) throws {
        let index = RawCIndex(path: path)
        self.index = index
        let migrations = try ArchiveMigrations.all()
        let names = migrations.map { strdup($0.name) }
        let checksums = migrations.map { strdup($0.checksum) }
        let sql = migrations.map { strdup($0.sql) }
        defer { (names + checksums + sql).forEach { free($0) } }
        let versions = migrations.map { Int64($0.version) }
        let opened = names.map { UnsafePointer($0) }.withUnsafeBufferPointer { namePointers in
            checksums.map { UnsafePointer($0) }.withUnsafeBufferPointer { checksumPointers in
                sql.map { UnsafePointer($0) }.withUnsafeBufferPointer { sqlPointers in
                    raw_peer_open(
                        path, Int32(migrations.count), versions, namePointers.baseAddress, checksumPointers.baseAddress,
                        sqlPointers.baseAddress, Self.registerTokenizer, Unmanaged.passUnretained(index).toOpaque(),
                        RawCIndex.callback)
                }
            }
        }
        guard let opened else { throw PeerError("raw C could not open \(path)") }
        peer = opened
    }

    deinit {
        raw_peer_close(peer)
    }

    /// Migration 0003's FTS5 table (dropped by 0004) needs the engine's tokenizer.
    private static let registerTokenizer: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { db in
        guard let db else { return 1 }
        do {
            try FavoritesSearchIndex.tokenizer.register(onConnection: OpaquePointer(db))
            return 0
        } catch {
            return 1
        }
    }

    /// The favorites search as a full scan (`instr` over the five text columns), 50 rows.
    public func scan(_ keyword: String) throws -> Int {
        var needle = keyword
        let count = needle.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { raw_peer_scan(peer, $0.baseAddress, Int32($0.count), 50, &scratch, Int32(scratch.count)) }
        }
        guard count >= 0 else { throw PeerError("raw C scan failed") }
        return Int(count)
    }

    public func importAll(_ data: WorkloadData) throws {
        guard raw_peer_import(peer, data.rawRows.baseAddress, Int64(data.count)) == 0 else { throw PeerError("raw C import failed") }
    }

    public func storedIDs(among ids: [Int]) throws -> Int {
        let asked = ids.map(Int64.init)
        let count = raw_peer_stored_ids(peer, asked, Int32(asked.count), &found)
        guard count >= 0 else { throw PeerError("raw C merge failed") }
        return Int(count)
    }

    public func toggle(_ data: WorkloadData, number: Int, add: Bool) throws {
        guard raw_peer_toggle(peer, data.rawRows.baseAddress! + number, add ? 1 : 0) == 0 else { throw PeerError("raw C toggle failed") }
    }

    public func newestPage() throws -> Int {
        Int(raw_peer_page(peer, 50, &scratch, Int32(scratch.count)))
    }
}

/// The raw C peer's search index work: the engine's own index writer
/// (``FavoritesSearchIndexWriter``) on the C connection, called back by C in its
/// transaction with each row (the index is runs the engine builds in Swift; C
/// has no equivalent to call). The rows' texts are handed over as bytes.
final class RawCIndex {
    let path: String
    private var database: SQLite.Database?
    private var writer = FavoritesSearchIndexWriter()

    init(path: String) {
        self.path = path
    }

    /// The engine's view of the C connection `db`, made once (its statements stay prepared).
    private func connection(_ db: UnsafeMutableRawPointer) -> SQLite.Database {
        if let database { return database }
        let borrowed = SQLite.Database(borrowing: OpaquePointer(db), path: path)
        database = borrowed
        return borrowed
    }

    func handle(db: UnsafeMutableRawPointer, event: Int32, row: UnsafePointer<raw_row>?) throws {
        let database = connection(db)
        switch (Int(event), row?.pointee) {
        case (Int(RAW_INDEX_BULK_ROW), let row?):
            try writer.addStored(id: Int(row.id), utf8Texts: [
                UnsafeRawBufferPointer(start: row.photo_url, count: Int(row.photo_url_len)),
                UnsafeRawBufferPointer(start: row.category, count: Int(row.category_len)),
                UnsafeRawBufferPointer(start: row.dish_name, count: Int(row.dish_name_len)),
                UnsafeRawBufferPointer(start: row.shop_name, count: Int(row.shop_name_len)),
                UnsafeRawBufferPointer(start: row.introduction, count: Int(row.introduction_len)),
            ], in: database)
        case (Int(RAW_INDEX_BULK_END), _):
            try writer.finish(in: database)
            writer = FavoritesSearchIndexWriter()
        case (Int(RAW_INDEX_STORED), let row?):
            try FavoritesSearchIndexWriter.stored(id: Int(row.id), in: database)
        case (Int(RAW_INDEX_REMOVED), let row?):
            try FavoritesSearchIndexWriter.removed(id: Int(row.id), in: database)
        default:
            throw PeerError("raw C called the index with event \(event) and no row")
        }
    }

    static let callback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<raw_row>?) -> Int32 = {
        context, db, event, row in
        guard let context, let db else { return 1 }
        do {
            try Unmanaged<RawCIndex>.fromOpaque(context).takeUnretainedValue().handle(db: db, event: event, row: row)
            return 0
        } catch {
            return 1
        }
    }
}
