import ArchiveStorage
import BenchmarkPeers
import Foundation
import SQLite

// Builds the database files of every peer and size before the benchmarks run,
// so that no benchmark process pays (in time or peak memory) for building them.
for count in Fixtures.sizes {
    for (name, open) in [
        ("engine", { (path: String) throws -> any FavoritesPeer in try EnginePeer(path: path) }),
        ("rawC", { try RawCPeer(path: $0) }),
        ("grdb", { try GRDBPeer(path: $0) }),
    ] {
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
    for name in ["engine", "rawC"] {
        let database = try Database(path: Fixtures.path(name, count))
        try database.register(FavoritesSearchIndex.tokenizer)
        if try database.tableExists("archive_objects_search") {
            try database.execute("INSERT INTO archive_objects_search (archive_objects_search) VALUES ('optimize')")
        }
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
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
        try database.register(FavoritesSearchIndex.tokenizer)
        try database.execute("DROP TABLE archive_objects_search; VACUUM")
    }
    sizes[String(count)] = ["withIndex": try fileSize(path), "withoutIndex": try fileSize(copy)]
    Fixtures.remove(copy)
}
let sizesPath = (Fixtures.directory as NSString).appendingPathComponent("index-sizes.json")
try JSONSerialization.data(withJSONObject: sizes, options: [.sortedKeys]).write(to: URL(fileURLWithPath: sizesPath))
print("\(sizesPath): \(sizes)")
