import Foundation

/// The seeds a convergence harness runs: its fixed ones (every run, CI included), and
/// `SYNC_SEEDS` more from a random start when asked (the failing seed is printed).
public enum ConvergenceSeeds {
    /// `fixed`, then `SYNC_SEEDS` more.
    public static func run(_ fixed: [UInt64]) -> [UInt64] {
        let extra = ProcessInfo.processInfo.environment["SYNC_SEEDS"].flatMap { Int($0) } ?? 0
        let start = UInt64.random(in: 1_000...UInt64(UInt32.max))
        return fixed + (0..<UInt64(max(extra, 0))).map { start + $0 }
    }
}
