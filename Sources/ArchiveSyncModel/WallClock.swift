#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock a side reads for its hybrid logical clock and its "now": Unix time in
/// whole milliseconds. Each side takes it as a function (`() -> Int64`), so that tests give
/// a clock of their own; ``system`` is the real one.
public enum WallClock {
    /// The system's real-time clock (`CLOCK_REALTIME`), in milliseconds since 1970.
    public static let system: @Sendable () -> Int64 = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }
}
