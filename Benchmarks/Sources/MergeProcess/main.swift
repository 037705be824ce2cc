import BenchmarkPeers
import Foundation

// A standalone merge, for whole-process peak memory: opens the engine's fixture
// of N favorites and asks `storedIDs(among:)` for the benchmark's 50 IDs,
// ITERATIONS times, then exits. Its peer is RawCMergeProcess (pure C).
//
//   MergeProcess DATABASE N ITERATIONS
let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), let iterations = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: MergeProcess DATABASE N ITERATIONS\n".utf8))
    exit(64)
}
do {
    let peer = try EnginePeer(path: arguments[1])
    var found = 0
    for iteration in 0..<iterations {
        found += try peer.storedIDs(among: WorkloadData.mergeIDs(for: count, iteration: iteration))
    }
    print(found)
} catch {
    FileHandle.standardError.write(Data("merge failed: \(error)\n".utf8))
    exit(1)
}
