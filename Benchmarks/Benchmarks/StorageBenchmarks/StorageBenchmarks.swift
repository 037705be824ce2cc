import ArchiveStorage
import ArchiveSyncModel
import Benchmark
import BenchmarkPeers
import Foundation
import MergeWorkload

// Every benchmark runs in a process of its own (ordo-one/benchmark does that),
// so peak memory is per workload. Database files are built once per peer and
// size (see Fixtures) and reused across runs.

nonisolated(unsafe) private var cachedData: [Int: WorkloadData] = [:]
nonisolated(unsafe) private var cachedChanges: [Int: [FavoriteChange]] = [:]

/// `count` changes another device made and this one receives, onto the `count`
/// favorites of the workload: favorites number `count/2 + 1` to `3·count/2`, so that
/// half supersede a stored favorite (their stamps are later than any of the fixture's)
/// and half are new.
private func receivedChanges(_ count: Int) -> [FavoriteChange] {
    if let changes = cachedChanges[count] { return changes }
    let device = DeviceID(bytes: [UInt8](repeating: 7, count: 16))!
    // 2030-01-01: later than the fixture's stamps, taken when it was built.
    let start: Int64 = 1_893_456_000_000 << 16
    let changes = (0..<count).map { index in
        let object = WorkloadData.object(number: count / 2 + 1 + index)
        return FavoriteChange(id: object.id, stamp: ChangeStamp(time: HybridTimestamp(rawValue: start + Int64(index)), device: device), state: .stored(object))
    }
    cachedChanges[count] = changes
    return changes
}

private func data(_ count: Int) -> WorkloadData {
    if let data = cachedData[count] { return data }
    let data = WorkloadData(count: count)
    cachedData[count] = data
    return data
}

/// The peers that implement the whole workload, by name.
private let peers: [(name: String, open: @Sendable (String) throws -> any FavoritesPeer)] = [
    ("engine", { try EnginePeer(path: $0) }),
    ("rawC", { try RawCPeer(path: $0) }),
    ("grdb", { try GRDBPeer(path: $0) }),
]

nonisolated(unsafe) private var openPeers: [String: any FavoritesPeer] = [:]

private func peer(_ name: String, _ count: Int, _ open: (String) throws -> any FavoritesPeer) throws -> any FavoritesPeer {
    let key = "\(name)-\(count)"
    if let peer = openPeers[key] { return peer }
    let path = try Fixtures.populated(name, count, open: open)
    let peer = try open(path)
    openPeers[key] = peer
    return peer
}

/// Runs `body`, an import into a new file at `path` whose peer is released when
/// `body` returns, and checks that its connection closed: an import is measured
/// to a closed file. Closing checkpoints the WAL into the file, with an fsync;
/// measured to the commit instead, a peer that writes past SQLite's 1,000-page
/// autocheckpoint paid that checkpoint in the measurement, and a peer writing
/// less paid its own after it, unmeasured (round 17, BENCHMARKS.md).
private func importClosed(_ path: String, _ body: () throws -> Void) throws {
    try body()
    guard !FileManager.default.fileExists(atPath: path + "-wal") else {
        throw PeerError("the import into \(path) left its WAL behind: the peer's connection is still open")
    }
}

private func configuration(_ metrics: [BenchmarkMetric], iterations: Int, seconds: Int = 5) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: metrics,
        warmupIterations: Fixtures.isSmoke ? 0 : min(10, iterations / 10),
        maxDuration: .seconds(Fixtures.isSmoke ? 1 : seconds),
        maxIterations: Fixtures.isSmoke ? min(iterations, 5) : iterations)
}

/// The metrics of the paired benchmarks: one call's time, in nanoseconds, by peer.
private enum PairedMetric {
    static let engine = BenchmarkMetric.custom("engine call (ns)")
    static let rawC = BenchmarkMetric.custom("rawC call (ns)")
    static let all = [engine, rawC]
}

/// The time `body` takes, in nanoseconds.
private func nanoseconds(_ body: () throws -> Void) rethrows -> Int {
    let start = ContinuousClock.now
    try body()
    let elapsed = (ContinuousClock.now - start).components
    return Int(elapsed.seconds) * 1_000_000_000 + Int(elapsed.attoseconds / 1_000_000_000)
}

let benchmarks: @Sendable () -> Void = {
    for count in Fixtures.sizes {
        for (name, open) in peers {
            // 1. Import: N favorites in one transaction, into a new file, measured to the file closed.
            Benchmark("import/\(name)/\(count)", configuration: configuration([.wallClock, .peakMemoryResident], iterations: count >= 1_000_000 ? 3 : 10, seconds: 60)) { benchmark in
                let workload = data(count)
                let path = try Fixtures.freshPath(name, count)
                // Every import starts with nothing of earlier work waiting for the disk
                // (the previous iteration's deleted file, the fixtures' checkpoints):
                // otherwise its closing fsync waits for that too, by however much
                // there happens to be (docs/PERFORMANCE.md). Not in a smoke run, which
                // measures nothing: sync() flushes every dirty page of the machine, so
                // its time would depend on what else the machine holds.
                if !Fixtures.isSmoke { sync() }
                benchmark.startMeasurement()
                try importClosed(path) {
                    let instance = try open(path)
                    try instance.importAll(workload)
                }
                benchmark.stopMeasurement()
                Fixtures.remove(path)
            }

            // 2. Merge: 50 result IDs, about half stored.
            Benchmark("merge/\(name)/\(count)", configuration: configuration([.wallClock, .peakMemoryResident], iterations: 20_000)) { benchmark in
                let instance = try peer(name, count, open)
                var iteration = 0
                for _ in benchmark.scaledIterations {
                    iteration += 1
                    let ids = MergeWorkload.ids(for: count, iteration: iteration)
                    benchmark.startMeasurement()
                    blackHole(try instance.storedIDs(among: ids))
                    benchmark.stopMeasurement()
                }
            }

            // 3. Toggle: alternating add and delete, each its own committed transaction.
            Benchmark("toggle/\(name)/\(count)", configuration: configuration([.wallClock], iterations: 5_000)) { benchmark in
                let workload = data(1)
                let instance = try peer(name, count, open)
                nonisolated(unsafe) var adding = true
                for _ in benchmark.scaledIterations {
                    // A favorite past the stored range: added, then deleted, then added...
                    try instance.toggle(workload, number: 0, add: adding)
                    adding.toggle()
                }
                if !adding { try instance.toggle(workload, number: 0, add: false) }
            }

            // 4. Page: the 50 newest favorites.
            Benchmark("page/\(name)/\(count)", configuration: configuration([.wallClock], iterations: 20_000)) { benchmark in
                let instance = try peer(name, count, open)
                for _ in benchmark.scaledIterations {
                    blackHole(try instance.newestPage())
                }
            }

            // 5. Open: an existing N-row file, including the migration check.
            Benchmark("open/\(name)/\(count)", configuration: configuration([.wallClock], iterations: 2_000)) { benchmark in
                let path = try Fixtures.populated(name, count, open: open)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(try open(path))
                }
            }
        }

        // 6. The favorites search index's price at import: the engine without it (to the file closed too).
        Benchmark("import/engineNoIndex/\(count)", configuration: configuration([.wallClock], iterations: count >= 1_000_000 ? 3 : 10, seconds: 60)) { benchmark in
            let workload = data(count)
            let path = try Fixtures.freshPath("engineNoIndex", count)
            benchmark.startMeasurement()
            try importClosed(path) {
                let instance = try EngineWithoutIndexPeer(path: path)
                try instance.importAll(workload)
            }
            benchmark.stopMeasurement()
            Fixtures.remove(path)
        }

        // 7. Favorites search: a keyword matching few rows, the first page of 50; the
        // engine's index against a full scan from C (`instr` over the text columns).
        Benchmark("favoritesSearch/engine/\(count)", configuration: configuration([.wallClock], iterations: 5_000)) { benchmark in
            guard let engine = try peer("engine", count, { try EnginePeer(path: $0) }) as? EnginePeer else { return }
            for _ in benchmark.scaledIterations {
                blackHole(try engine.search(WorkloadData.rareKeyword))
            }
        }
        Benchmark("favoritesSearch/rawCScan/\(count)", configuration: configuration([.wallClock], iterations: count >= 1_000_000 ? 20 : 200, seconds: 20)) { benchmark in
            guard let raw = try peer("rawC", count, { try RawCPeer(path: $0) }) as? RawCPeer else { return }
            for _ in benchmark.scaledIterations {
                blackHole(try raw.scan(WorkloadData.rareKeyword))
            }
        }

        // 8. Sync: N changes received from another device, applied in one transaction to a
        // copy of the engine's N-favorite file (the merge rule for each: half supersede a
        // stored favorite, half are new; the search index kept in step in bulk), measured to
        // the file closed: against import/engine/N's rows/s.
        Benchmark("syncApply/engine/\(count)", configuration: configuration([.wallClock], iterations: count >= 1_000_000 ? 3 : 10, seconds: 60)) { benchmark in
            let changes = receivedChanges(count)
            let fixture = try Fixtures.populated("engine", count) { try EnginePeer(path: $0) }
            let path = try Fixtures.freshPath("syncApply", count)
            try FileManager.default.copyItem(atPath: fixture, toPath: path)
            if !Fixtures.isSmoke { sync() }
            benchmark.startMeasurement()
            try importClosed(path) {
                let database = try ArchiveDatabase(path: path)
                let summary = try database.favorites.apply(changes)
                guard summary.applied == changes.count else { throw PeerError("applied \(summary.applied) of \(changes.count) changes: \(summary)") }
            }
            benchmark.stopMeasurement()
            Fixtures.remove(path)
        }

        // 8b. Sync between two files holding the same N favorites (two devices that met
        // before): one makes 1,000 changes (removes 1,000 favorites, or stores them again),
        // then `archive sync`'s session runs both ways. Its cost should follow the changes,
        // not the favorites: 1,000,000 against 10,000 is the target's ratio.
        Benchmark("syncPair/engine/\(count)", configuration: configuration([.wallClock], iterations: count >= 1_000_000 ? 20 : 50, seconds: 60)) { benchmark in
            let pair = try Fixtures.syncPair(count) { try EnginePeer(path: $0) }
            let paths = [try Fixtures.freshPath("syncPairA", count), try Fixtures.freshPath("syncPairB", count)]
            for (source, path) in zip([pair.first, pair.second], paths) { try FileManager.default.copyItem(atPath: source, toPath: path) }
            defer { paths.forEach(Fixtures.remove) }
            let first = try ArchiveDatabase(path: paths[0]), second = try ArchiveDatabase(path: paths[1])
            let changed = (1...Fixtures.syncPairChanges).map { WorkloadData.object(number: $0) }
            var removing = true
            for _ in benchmark.scaledIterations {
                var changes = 0
                for object in changed {
                    let changedOne = removing ? try first.favorites.delete(id: object.id) : try first.favorites.create(object)
                    if changedOne { changes += 1 }
                }
                removing.toggle()
                benchmark.startMeasurement()
                let summary = try SyncSession.run(first, with: second)
                benchmark.stopMeasurement()
                guard summary.sent.applied == changes, changes > 0, summary.received.applied == 0 else {
                    throw PeerError("a sync of \(changes) changes moved \(summary)")
                }
            }
        }

        // 9. Page, merge and toggle, the engine and raw C taking turns call by call (engine, raw C,
        // raw C, engine), each call's time a sample of its peer's own metric. On a host whose
        // speed changes from one minute to the next (round 22, BENCHMARKS.md: every page
        // benchmark there had two modes, 33 and 57 µs for raw C), a change falls on both alike,
        // where the benchmarks above time each peer in a process of its own, at another moment.
        Benchmark("page/paired/\(count)", configuration: configuration(PairedMetric.all, iterations: 10_000)) { benchmark in
            let engine = try peer("engine", count, { try EnginePeer(path: $0) })
            let raw = try peer("rawC", count, { try RawCPeer(path: $0) })
            for _ in benchmark.scaledIterations {
                let turns: [(BenchmarkMetric, any FavoritesPeer)] = [(PairedMetric.engine, engine), (PairedMetric.rawC, raw), (PairedMetric.rawC, raw), (PairedMetric.engine, engine)]
                for (metric, instance) in turns {
                    benchmark.measurement(metric, try nanoseconds { blackHole(try instance.newestPage()) })
                }
            }
        }
        Benchmark("merge/paired/\(count)", configuration: configuration(PairedMetric.all, iterations: 10_000)) { benchmark in
            let engine = try peer("engine", count, { try EnginePeer(path: $0) })
            let raw = try peer("rawC", count, { try RawCPeer(path: $0) })
            var iteration = 0
            for _ in benchmark.scaledIterations {
                iteration += 1
                let ids = MergeWorkload.ids(for: count, iteration: iteration)
                let turns: [(BenchmarkMetric, any FavoritesPeer)] = [(PairedMetric.engine, engine), (PairedMetric.rawC, raw), (PairedMetric.rawC, raw), (PairedMetric.engine, engine)]
                for (metric, instance) in turns {
                    benchmark.measurement(metric, try nanoseconds { blackHole(try instance.storedIDs(among: ids)) })
                }
            }
        }
        Benchmark("toggle/paired/\(count)", configuration: configuration(PairedMetric.all, iterations: 2_500)) { benchmark in
            let workload = data(1)
            let engine = try peer("engine", count, { try EnginePeer(path: $0) })
            let raw = try peer("rawC", count, { try RawCPeer(path: $0) })
            for _ in benchmark.scaledIterations {
                // Each adds the favorite past the stored range, then deletes it: the file ends as it began.
                let turns: [(BenchmarkMetric, any FavoritesPeer, Bool)] = [(PairedMetric.engine, engine, true), (PairedMetric.rawC, raw, true), (PairedMetric.rawC, raw, false), (PairedMetric.engine, engine, false)]
                for (metric, instance, add) in turns {
                    benchmark.measurement(metric, try nanoseconds { try instance.toggle(workload, number: 0, add: add) })
                }
            }
        }

        // 10. The original app's merge, over the engine's file.
        Benchmark("merge/original/\(count)", configuration: configuration([.wallClock, .peakMemoryResident], iterations: count >= 1_000_000 ? 5 : 50, seconds: 30)) { benchmark in
            let path = try Fixtures.populated("engine", count) { try EnginePeer(path: $0) }
            let original = try OriginalApproachPeer(path: path)
            var iteration = 0
            for _ in benchmark.scaledIterations {
                iteration += 1
                let ids = MergeWorkload.ids(for: count, iteration: iteration)
                benchmark.startMeasurement()
                blackHole(try original.storedIDs(among: ids))
                benchmark.stopMeasurement()
            }
        }
    }

    // 11. The full archive search through the Store, at the largest size, dispatched
    // from the main actor as both fronts dispatch it (TUIApp and the CLI's commands
    // are @MainActor). ordo-one runs a benchmark on a task of the global pool:
    // awaiting the store from there would also time a hop to the main thread and back
    // each search, which no front makes. The measurement
    // starts and stops on the main actor, so the task's hop back is not timed either.
    let largest = Fixtures.sizes.last ?? 1_000
    Benchmark("storeSearch/engine/\(largest)", configuration: configuration([.wallClock], iterations: 5_000)) { @MainActor benchmark in
        let path = try Fixtures.populated("engine", largest) { try EnginePeer(path: $0) }
        let harness = try StoreSearchHarness(path: path)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(await harness.search())
        }
        benchmark.stopMeasurement()
    }
}
