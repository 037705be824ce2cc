import ServiceLifecycle
import UnixSignals

/// The signals `archive-server` answers, trapped once, as its first step: SIGINT and
/// SIGTERM (stop: graceful, a second one at once) and SIGHUP (reload). Trapped from the
/// start, a signal that comes while the database opens or migrates is kept for the
/// lifecycle to read, instead of killing the process with the kernel's default action
/// (SIGHUP's is to end it: `systemctl reload` of a server still starting).
public struct ServiceSignals: Sendable {
    /// SIGINT and SIGTERM.
    let stops: UnixSignalsSequence
    /// SIGHUP.
    let hangups: UnixSignalsSequence

    /// Traps the three signals now (their default actions no longer run).
    public static func trap() async -> ServiceSignals {
        ServiceSignals(stops: await UnixSignalsSequence(trapping: .sigint, .sigterm), hangups: await UnixSignalsSequence(trapping: .sighup))
    }
}
