import ArchiveStorage
import Foundation

/// The benchmark's database files, one per peer and size, built once and reused
/// by every benchmark process (each benchmark runs in a process of its own).
public enum Fixtures {
    /// Where the files live: `FAVORITE_ARCHIVE_BENCH_DIR`, or a folder of the temporary directory.
    public static var directory: String {
        ProcessInfo.processInfo.environment["FAVORITE_ARCHIVE_BENCH_DIR"]
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("favorite-archive-benchmarks")
    }

    /// The smoke mode of CI: small sizes, few iterations (`FAVORITE_ARCHIVE_BENCH_SMOKE=1`).
    public static var isSmoke: Bool {
        ProcessInfo.processInfo.environment["FAVORITE_ARCHIVE_BENCH_SMOKE"] == "1"
    }

    /// Whether every peer commits as the engine ships (`synchronous=FULL`, each commit synced
    /// before it returns), or, with `FAVORITE_ARCHIVE_BENCH_SYNCHRONOUS=normal`, as the engine
    /// did before durable acknowledgements: to measure what they cost, in the same build.
    public static var commitsUnsynced: Bool {
        ProcessInfo.processInfo.environment["FAVORITE_ARCHIVE_BENCH_SYNCHRONOUS"] == "normal"
    }

    /// The sizes measured: `FAVORITE_ARCHIVE_BENCH_SIZES` (comma-separated) or 10,000, 100,000 and 1,000,000.
    public static var sizes: [Int] {
        if let list = ProcessInfo.processInfo.environment["FAVORITE_ARCHIVE_BENCH_SIZES"] {
            let sizes = list.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
            if !sizes.isEmpty { return sizes }
        }
        return isSmoke ? [1_000] : [10_000, 100_000, 1_000_000]
    }

    /// The path of a new, empty file for an import (removing any previous one).
    public static func freshPath(_ peer: String, _ count: Int) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent("import-\(peer)-\(count)-\(getpid()).sqlite3")
        remove(path)
        return path
    }

    /// The schema version the fixtures are built at: part of their names, so that a
    /// new migration builds new files instead of migrating old ones mid-benchmark.
    public static var schemaVersion: Int { (try? ArchiveMigrations.all().count) ?? 0 }

    /// How the peers write their files: part of their names, raised when a peer's way
    /// of writing changes, so that files written the old way are not reused.
    /// 2: the GRDB peer keeps the search index in step (round 10).
    public static let revision = 2

    /// The path of the file of `peer` holding the `count` favorites of the workload.
    public static func path(_ peer: String, _ count: Int) -> String {
        (directory as NSString).appendingPathComponent("\(peer)-v\(schemaVersion)r\(revision)-\(count).sqlite3")
    }

    /// The file of `peer` holding the `count` favorites of the workload, built on first use.
    public static func populated(_ peer: String, _ count: Int, open: (String) throws -> any FavoritesPeer) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = path(peer, count)
        let marker = path + ".complete"
        if FileManager.default.fileExists(atPath: marker) { return path }
        remove(path)
        do {
            let data = WorkloadData(count: count)
            let instance = try open(path)
            try instance.importAll(data)
        }
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        return path
    }

    /// How many changes the sync-pair benchmark moves each sync.
    public static let syncPairChanges = 1_000

    /// Two files holding the `count` favorites of the workload as two devices that have
    /// synced: the first a copy of the engine's file, the second a new file that synced with
    /// it (its own device ID; a byte copy would share the first's, and sync refuses it).
    /// Built on first use.
    public static func syncPair(_ count: Int, open: (String) throws -> any FavoritesPeer) throws -> (first: String, second: String) {
        let first = path("syncPairA", count), second = path("syncPairB", count)
        let marker = second + ".complete"
        if FileManager.default.fileExists(atPath: marker) { return (first, second) }
        remove(first)
        remove(second)
        try FileManager.default.copyItem(atPath: try populated("engine", count, open: open), toPath: first)
        do {
            let one = try ArchiveDatabase(path: first), other = try ArchiveDatabase(path: second)
            let summary = try SyncSession.run(one, with: other)
            guard summary.sent.applied == count else { throw PeerError("the sync pair of \(count): \(summary)") }
        }
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        return (first, second)
    }

    /// Removes a database file and its WAL and shared-memory files.
    public static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", ".complete"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
