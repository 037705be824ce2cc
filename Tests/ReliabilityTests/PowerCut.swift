import CrashVFS
import Foundation
import SQLite
import TestSupport
import Testing

/// Power cuts at every write of a workload, through the crash VFS (Tests/CrashVFS, after
/// SQLite's test6.c): the workload runs on copies of its prepared files, through a VFS that
/// loses the power at event N (its Nth write, truncation, deletion or sync); the files are
/// then rewritten as the power cut could have left them (every unsynced change lost, or each
/// sector kept or lost at random, or all kept: only the process died), reopened through the
/// default VFS, checked, and compared with the states the workload passes through.
///
/// What must hold at every point and in every mode: the files open (recovery included) and
/// pass their checks (`read` throws otherwise); their state is the state after the steps
/// acknowledged before the power went, or after one more (the step in flight, whole): never
/// less (an acknowledged step lost) and never part of a step.
enum PowerCut {
    /// How the unsynced changes fare (`crash_vfs_mode`).
    enum Mode: Int32, CaseIterable, CustomStringConvertible {
        case dropAll = 0, tear = 1, keepAll = 2
        var description: String { ["every unsynced change lost", "torn and reordered", "all kept"][Int(rawValue)] }
    }

    /// A workload: its files, its steps (each acknowledged when it returns), what it reads back.
    struct Workload<State: Equatable & Sendable> {
        /// Makes the starting files in the directory (default VFS; closed when it returns).
        var prepare: (TemporaryDirectory) throws -> Void
        /// How many steps the workload has.
        var steps: Int
        /// Runs the first `count` steps on the directory's files, opened with `configuration`,
        /// calling `acknowledged()` after each one returns.
        var run: (_ directory: TemporaryDirectory, _ configuration: Configuration, _ count: Int, _ acknowledged: () -> Void) async throws -> Void
        /// Opens the files through the default VFS, checks them (throwing what is wrong) and
        /// reads their state.
        var read: (TemporaryDirectory) throws -> State
        /// Whether `state` may follow a cut with `acknowledged` steps done, given the states
        /// after each count of steps; by default, the state after those steps or one more.
        var accepts: (_ state: State, _ acknowledged: Int, _ states: [State]) -> Bool = { state, acknowledged, states in
            states[acknowledged...min(acknowledged + 1, states.count - 1)].contains(state)
        }
    }

    /// The crash VFS's configuration: every file opened through "crash".
    static func configuration(_ base: Configuration = Configuration()) throws -> Configuration {
        guard crash_vfs_register() == 0 else { throw PowerCutError("the crash VFS could not be registered") }
        var configuration = base
        configuration.vfsName = "crash"
        return configuration
    }

    /// Whether every point and mode is tried (`POWER_LOSS_EXHAUSTIVE=1`), or a sample.
    static var exhaustive: Bool { ProcessInfo.processInfo.environment["POWER_LOSS_EXHAUSTIVE"] == "1" }

    /// Which points of a workload are cut, and how.
    enum Sample {
        /// Every point with every change lost, every third with the other two modes too (all
        /// three at every point when exhaustive).
        case every
        /// `count` points spread evenly over the workload (the last included), the modes in
        /// turn (a workload too long to cut everywhere); when exhaustive, four times as many
        /// points, in every mode.
        case spread(Int)

        func cuts(of points: Int) -> [(point: Int, modes: [Mode])] {
            let all = Array(1...max(1, points))
            switch self {
            case .every:
                return all.map { point in (point, PowerCut.exhaustive || point % 3 == 0 ? Mode.allCases : [.dropAll]) }
            case .spread(let asked):
                let count = max(1, min(PowerCut.exhaustive ? asked * 4 : asked, all.count))
                return (1...count).map { index in
                    (all[(all.count * index) / count - 1], PowerCut.exhaustive ? Mode.allCases : [Mode.allCases[index % Mode.allCases.count]])
                }
            }
        }
    }

    /// Cuts the power at every point of `workload`; returns the points and the cuts tried.
    @discardableResult
    static func everyPoint<State>(
        _ workload: Workload<State>, sample: Sample? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (points: Int, cuts: Int) {
        let (template, configuration, states, points, _) = try await reference(workload)
        #expect(points > 0, "the workload wrote nothing through the crash VFS", sourceLocation: sourceLocation)

        var cuts = 0
        for (point, modes) in (sample ?? .every).cuts(of: Int(points)) {
            for mode in modes {
                let directory = try template.copy()
                crash_vfs_arm(point)
                var acknowledged = 0
                do {
                    try await workload.run(directory, configuration, workload.steps) { acknowledged += 1 }
                } catch {
                    // The power went: the step in flight failed, later ones never ran.
                }
                #expect(crash_vfs_crashed() == 1, "point \(point): the workload ended before it", sourceLocation: sourceLocation)
                let failed = crash_vfs_power_cut(mode.rawValue, UInt32(truncatingIfNeeded: point))
                #expect(failed == 0, "point \(point): the power cut could not rewrite the files: \(String(cString: strerror(failed)))", sourceLocation: sourceLocation)
                cuts += 1
                let state: State
                do {
                    state = try workload.read(directory)
                } catch {
                    Issue.record("power cut at point \(point) of \(points) (\(mode), \(acknowledged) acknowledged): \(error)", sourceLocation: sourceLocation)
                    continue
                }
                let accepted = workload.accepts(state, acknowledged, states)
                #expect(accepted,
                        "power cut at point \(point) of \(points) (\(mode)) after \(acknowledged) acknowledged steps: \(state), expected the state after them or one more: \(Array(states[acknowledged...min(acknowledged + 1, workload.steps)]))",
                        sourceLocation: sourceLocation)
            }
        }
        crash_vfs_arm(0)
        if ProcessInfo.processInfo.environment["POWER_LOSS_REPORT"] == "1" { print("power cuts: \(sourceLocation.line): \(points) points, \(cuts) cuts") }
        return (Int(points), cuts)
    }

    /// Fails every I/O call of `workload` in turn (a read, write, sync, truncation, lock or
    /// deletion, with its SQLite I/O error; writes and truncations also with SQLITE_FULL), the
    /// power on: the step that meets the failure throws an error of one line, or SQLite
    /// recovers and it succeeds; either way the files, reopened through the default VFS, pass
    /// their checks and hold the state after the acknowledged steps, or one more. Returns the
    /// calls and the failures tried, and the distinct errors seen.
    @discardableResult
    static func everyIOError<State>(
        _ workload: Workload<State>, stride sampled: Int = 2, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (calls: Int, failures: Int, errors: Set<String>) {
        let (template, configuration, states, _, calls) = try await reference(workload)
        #expect(calls > 0, "the workload made no I/O call through the crash VFS", sourceLocation: sourceLocation)

        var failures = 0
        var errors = Set<String>()
        for point in 1...max(1, calls) where exhaustive || point % sampled == 0 {
            for full in [0, 1] as [Int32] {
                let directory = try template.copy()
                crash_vfs_fail_at(point, full)
                var acknowledged = 0
                var thrown: (any Error)?
                do {
                    try await workload.run(directory, configuration, workload.steps) { acknowledged += 1 }
                } catch {
                    thrown = error
                }
                #expect(crash_vfs_failed() == 1, "call \(point): the workload ended before it", sourceLocation: sourceLocation)
                crash_vfs_fail_at(0, 0)
                failures += 1
                if let thrown {
                    let text = "\(thrown)"
                    errors.insert(text)
                    #expect(!text.isEmpty && !text.contains("\n"), "call \(point): not one line: \(text)", sourceLocation: sourceLocation)
                }
                let state: State
                do {
                    state = try workload.read(directory)
                } catch {
                    Issue.record("I/O error at call \(point) of \(calls) (full: \(full), \(acknowledged) acknowledged, \(thrown.map { "\($0)" } ?? "no error")): \(error)", sourceLocation: sourceLocation)
                    continue
                }
                let accepted = workload.accepts(state, acknowledged, states)
                #expect(accepted,
                        "I/O error at call \(point) of \(calls) (full: \(full)) after \(acknowledged) acknowledged steps: \(state), expected the state after them or one more: \(Array(states[acknowledged...min(acknowledged + 1, workload.steps)]))",
                        sourceLocation: sourceLocation)
            }
        }
        if ProcessInfo.processInfo.environment["POWER_LOSS_REPORT"] == "1" {
            print("I/O errors: \(sourceLocation.line): \(calls) calls, \(failures) failures, errors: \(errors.sorted())")
        }
        return (Int(calls), failures, errors)
    }

    /// The workload's prepared files, the crash VFS's configuration, the states after 0,
    /// 1, ... steps (run through the VFS with nothing injected, and closed), and the events
    /// (writes, truncations, deletions, syncs) and the I/O calls of the whole workload.
    static func reference<State>(
        _ workload: Workload<State>
    ) async throws -> (template: TemporaryDirectory, configuration: Configuration, states: [State], events: Int, calls: Int) {
        let template = try TemporaryDirectory()
        try workload.prepare(template)
        let configuration = try configuration()
        var states: [State] = []
        var (events, calls) = (0, 0)
        for count in 0...workload.steps {
            let directory = try template.copy()
            crash_vfs_arm(0)  // counts both, fails nothing
            try await workload.run(directory, configuration, count) {}
            (events, calls) = (crash_vfs_events(), crash_vfs_calls())
            states.append(try workload.read(directory))
        }
        return (template, configuration, states, events, calls)
    }
}

/// The harness itself failed (not the engine).
struct PowerCutError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
