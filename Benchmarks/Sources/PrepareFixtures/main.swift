import BenchmarkPeers
import Foundation

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
