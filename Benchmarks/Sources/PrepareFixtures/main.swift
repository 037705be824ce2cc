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
}

// Each run starts from the fixtures' index as an import leaves it, in one segment:
// the toggle benchmarks of earlier runs leave FTS5 small segments behind (5 after
// one run's 5,000 toggles at 10,000), and every search then looks in each of them
// (37 µs at 10,000 with one segment, 60 µs with five). Merging is a no-op on an
// index that is one segment already.
for count in Fixtures.sizes {
    for (name, open) in peers {
        let database = try Database(path: Fixtures.path(name, count))
        try database.register(FavoritesSearchIndex.tokenizer)
        if try database.tableExists(FavoritesSearchIndex.table) {
            try database.execute(FavoritesSearchIndex.optimizeSQL)
        }
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

/// Throws unless the search index of `database` holds as many favorites as its table
/// (FTS5's totals, which every indexed insert and delete updates) and FTS5 finds its
/// own structure sound.
func checkIndex(of database: Database, peer: String, after step: String) throws {
    let favorites = try database.fetchOne("SELECT count(*) FROM archive_objects") { try $0.column(Int.self, at: 0) }
    let indexed = try FavoritesSearchIndex.indexedFavorites(in: database)
    guard indexed == favorites else {
        throw PeerError("\(peer)'s file holds \(favorites ?? 0) favorites after \(step), its search index \(indexed.map(String.init) ?? "none"): the peer does not keep the index in step")
    }
    try database.execute("INSERT INTO \(FavoritesSearchIndex.table) (\(FavoritesSearchIndex.table)) VALUES ('integrity-check')")
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
        try database.register(FavoritesSearchIndex.tokenizer)
        try database.execute("DROP TABLE archive_objects_search; VACUUM")
    }
    sizes[String(count)] = ["withIndex": try fileSize(path), "withoutIndex": try fileSize(copy)]
    Fixtures.remove(copy)
}
let sizesPath = (Fixtures.directory as NSString).appendingPathComponent("index-sizes.json")
try JSONSerialization.data(withJSONObject: sizes, options: [.sortedKeys]).write(to: URL(fileURLWithPath: sizesPath))
print("\(sizesPath): \(sizes)")
