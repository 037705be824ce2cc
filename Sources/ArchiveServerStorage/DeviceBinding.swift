public import ArchiveSyncModel

/// Which device IDs a device token may sync as: the rule both backends apply, in one place,
/// to the facts each reads in its push or pull transaction (after the user's row is locked).
///
/// A device's own token binds to the device ID it first syncs with and serves only that
/// one afterwards, so a stolen token cannot register devices of its own. A shared token
/// (the one a user's devices all used before device tokens) binds to none and serves any
/// device ID that has no token of its own. A device ID can be bound to one token at most.
public enum DeviceBinding: Equatable, Sendable {
    /// The token already serves this device ID (bound to it, or shared).
    case admitted
    /// The token is not bound yet: bind it to this device ID, then admit.
    case bind
    /// The token is bound to another device ID, or (a shared token) this device ID has a
    /// token of its own: `403`, nothing read or written.
    case refused

    /// The decision for a request from `device` with a token bound to `bound` (`nil`: not
    /// yet), `shared` or not, when `takenByAnother` says whether another token of the same
    /// user is bound to `device`.
    public static func decide(device: DeviceID, bound: DeviceID?, shared: Bool, takenByAnother: Bool) -> DeviceBinding {
        if takenByAnother { return .refused }
        if shared { return .admitted }
        guard let bound else { return .bind }
        return bound == device ? .admitted : .refused
    }
}
