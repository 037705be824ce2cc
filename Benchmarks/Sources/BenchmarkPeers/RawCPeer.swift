import ArchiveStorage
import SQLite
import CRawSQLitePeer
import Foundation

/// The practical limit: the engine's SQL and pragmas called from C.
public final class RawCPeer: FavoritesPeer {
    let peer: OpaquePointer
    private var found = [Int64](repeating: 0, count: 64)
    private var scratch = [CChar](repeating: 0, count: 1 << 16)

    public init(path: String) throws {
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
                        sqlPointers.baseAddress, Self.registerTokenizer)
                }
            }
        }
        guard let opened else { throw PeerError("raw C could not open \(path)") }
        peer = opened
    }

    deinit {
        raw_peer_close(peer)
    }

    /// The schema's search index needs the engine's tokenizer on every connection
    /// that writes favorites: the same SQL from C means the same index work.
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
