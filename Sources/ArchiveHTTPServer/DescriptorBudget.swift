#if canImport(Glibc)
import Glibc
#endif

/// How many connections the process's descriptor limit (`RLIMIT_NOFILE`) leaves room for.
///
/// Past the limit, `accept(2)` fails with `EMFILE` while the listening socket stays
/// readable: SwiftNIO's accept loop then spins at full CPU, nothing new is answered (not
/// even the `503` of the server's own connection limit), and libdispatch, which opens
/// `/proc` files, can die of it. So the connection bound is kept below the descriptor
/// limit with descriptors in ``reserve`` for the rest of the process (the database and
/// its WAL, PostgreSQL's connections, logs, a refused connection being answered), and the
/// soft limit is first raised toward the hard one when the wanted bound needs it.
public struct DescriptorBudget: Sendable, Hashable {
    /// The connections the server may hold open.
    public let connections: Int
    /// The descriptor limit in force (the soft `RLIMIT_NOFILE`, after raising it).
    public let descriptorLimit: Int
    /// Descriptors kept for everything but client connections.
    public let reserve: Int

    /// Descriptors kept besides `extra` (a PostgreSQL pool's connections): SQLite's files,
    /// standard streams, the listener, NIO's event loops, refusals in flight.
    public static let baseReserve = 64

    /// The budget for `wanted` connections with `extra` descriptors kept for the storage:
    /// raises the soft limit toward the hard one if `wanted` needs it, then bounds
    /// `connections` by what the limit leaves (at least 1).
    public static func make(wanted: Int, extra: Int) -> DescriptorBudget {
        let reserve = baseReserve + max(0, extra)
        var limit = rlimit()
        guard getrlimit(Self.descriptors, &limit) == 0 else {
            return DescriptorBudget(connections: wanted, descriptorLimit: Int.max, reserve: reserve)
        }
        let needed = rlim_t(clamping: wanted + reserve)
        if limit.rlim_cur != Self.unlimited, limit.rlim_cur < needed {
            var raised = limit
            raised.rlim_cur = limit.rlim_max == Self.unlimited ? needed : min(needed, limit.rlim_max)
            if setrlimit(Self.descriptors, &raised) == 0 { limit = raised }
        }
        let available = limit.rlim_cur == Self.unlimited ? Int.max : Int(clamping: limit.rlim_cur)
        return DescriptorBudget(
            connections: max(1, min(wanted, available - reserve)),
            descriptorLimit: available, reserve: reserve)
    }

    /// `RLIM_INFINITY` (all ones; Swift imports Glibc's macro as a signed literal it cannot store).
    private static let unlimited = rlim_t.max

    /// Glibc's `RLIMIT_NOFILE` as `getrlimit` takes it (an enum constant on Linux).
    private static let descriptors = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
}
