import ArchiveStorage
import Foundation
import MergeWorkload

// A standalone merge, for whole-process peak memory: opens the engine's fixture
// of N favorites and asks `storedIDs(among:)` for the benchmark's 50 IDs,
// ITERATIONS times, then exits. It links the engine (ArchiveStorage) and the
// workload's IDs only, as an app embedding the engine would. Its peer is
// RawCMergeProcess (pure C).
//
//   MergeProcess DATABASE N ITERATIONS
let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), let iterations = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: MergeProcess DATABASE N ITERATIONS\n".utf8))
    exit(64)
}
do {
    let database = try ArchiveDatabase(path: arguments[1])
    var found = 0
    for iteration in 0..<iterations {
        found += try database.favorites.storedIDs(among: MergeWorkload.ids(for: count, iteration: iteration)).count
    }
    print(found)
} catch {
    FileHandle.standardError.write(Data("merge failed: \(error)\n".utf8))
    exit(1)
}
