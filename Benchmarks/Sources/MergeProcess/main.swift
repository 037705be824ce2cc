import ArchiveStorage
import ArchiveSyncModel
import MergeWorkload

#if canImport(Glibc)
import Glibc
#endif

// A standalone merge, for whole-process peak memory: opens the engine's fixture
// of N favorites and asks `storedIDs(among:)` for the benchmark's 50 IDs,
// ITERATIONS times, then exits. It links the engine (ArchiveStorage, which needs
// only FoundationEssentials) and the workload's IDs only, as an app embedding the
// engine would. Its peer is RawCMergeProcess (pure C).
//
//   MergeProcess DATABASE N ITERATIONS

/// Writes `message` and a newline to standard error, then exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), let iterations = Int(arguments[3]) else {
    fail("usage: MergeProcess DATABASE N ITERATIONS", status: 64)
}
do {
    let database = try ArchiveDatabase(path: arguments[1])
    var found = 0
    for iteration in 0..<iterations {
        found += try database.favorites.storedIDs(among: MergeWorkload.ids(for: count, iteration: iteration)).count
    }
    print(found)
} catch {
    fail("merge failed: \(error)", status: 1)
}
