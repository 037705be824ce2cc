import ArchiveStorage
import BenchmarkPeers
import Foundation
import SQLite

/// The peers that write database files, by name.
let peers: [(name: String, open: (String) throws -> any FavoritesPeer)] = [
    ("engine", { try EnginePeer(path: $0) }),
    ("rawC", { try RawCPeer(path: $0) }),
    ("grdb", { try GRDBPeer(path: $0) }),
]

// Builds the database files of every peer and size before the benchmarks run,
// so that no benchmark process pays (in time or peak memory) for building them.
for count in Fixtures.sizes {
    for (name, open) in peers {
        let start = Date()
        let path = try Fixtures.populated(name, count, open: open)
        print("\(path) ready (\(String(format: "%.1f", Date().timeIntervalSince(start))) s)")
    }
    let start = Date()
    let pair = try Fixtures.syncPair(count) { try EnginePeer(path: $0) }
    print("\(pair.second) ready (\(String(format: "%.1f", Date().timeIntervalSince(start))) s)")
}

// The toggle benchmarks of earlier runs leave the index a few small runs and
// favorites waiting for one (fewer than 64), as a user's toggles would: a search
// looks each key up in every run, and reads the waiting favorites one by one.
for count in Fixtures.sizes {
    for (name, open) in peers {
        let database = try Database(path: Fixtures.path(name, count))
        // CI's smoke run checks that every peer keeps its search index in step with its
        // favorites, as the engine does, so that no peer is measured doing less work:
        // after its import, then after a toggle's delete and add.
        if Fixtures.isSmoke {
            try checkIndex(of: database, peer: name, after: "its import")
            let peer = try open(Fixtures.path(name, count))
            for add in [false, true] {
                try peer.toggle(WorkloadData(count: 1), number: 0, add: add)
                try checkIndex(of: database, peer: name, after: add ? "an add" : "a delete")
            }
        }
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}

/// Throws unless the search index of `database` decodes and covers every favorite
/// of its table (what `archive check` asks), and has runs at all.
func checkIndex(of database: Database, peer: String, after step: String) throws {
    let problems = try FavoritesSearchIndex.problems(in: database)
    let runs = try database.fetchOne("SELECT count(*) FROM archive_search_runs") { try $0.int(at: 0) } ?? 0
    guard problems.isEmpty, runs > 0 else {
        throw PeerError("\(peer)'s search index after \(step): \(runs) runs; \(problems.joined(separator: "; ")): the peer does not keep the index in step")
    }
}

// The favorites search index's price in file size: each engine fixture, and a
// vacuumed copy of it without the index (index-sizes.json, read by report.py).
var sizes: [String: [String: Int]] = [:]
func fileSize(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
}
for count in Fixtures.sizes {
    let path = Fixtures.path("engine", count)
    let copy = path + ".without-index"
    Fixtures.remove(copy)
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    do {
        let database = try Database(path: copy)
        for table in FavoritesSearchIndex.tables { try database.execute("DROP TABLE \(table)") }
        try database.execute("VACUUM")
    }
    sizes[String(count)] = ["withIndex": try fileSize(path), "withoutIndex": try fileSize(copy)]
    Fixtures.remove(copy)
    // The sync metadata's price (migration 0006): a vacuumed copy of the fixture, then the
    // same without the stamp, device and seq of each favorite, their index and the sync tables.
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    do {
        let database = try Database(path: copy)
        try database.execute("VACUUM")
        sizes[String(count)]?["vacuumed"] = try fileSize(copy)
        for statement in [
            "DROP INDEX archive_objects_by_seq", "ALTER TABLE archive_objects DROP COLUMN stamp",
            "ALTER TABLE archive_objects DROP COLUMN device", "ALTER TABLE archive_objects DROP COLUMN seq",
            "DROP TABLE archive_tombstones", "DROP TABLE sync_devices", "DROP TABLE sync_state", "DROP TABLE sync_peers", "VACUUM",
        ] {
            try database.execute(statement)
        }
    }
    sizes[String(count)]?["withoutSync"] = try fileSize(copy)
    Fixtures.remove(copy)
}
let sizesPath = (Fixtures.directory as NSString).appendingPathComponent("index-sizes.json")
try JSONSerialization.data(withJSONObject: sizes, options: [.sortedKeys]).write(to: URL(fileURLWithPath: sizesPath))
print("\(sizesPath): \(sizes)")
