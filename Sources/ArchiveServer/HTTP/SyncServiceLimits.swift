import ArchiveSyncWire

/// What the sync API accepts (`archive-server --max-body-bytes …`), each refused with a
/// status that says which limit and what to do.
public struct SyncServiceLimits: Sendable, Hashable {
    /// The largest request body (`413` past it).
    public var maximumBodyBytes = SyncAPI.defaultMaximumBodyBytes
    /// The most changes one push may carry (`413` past it).
    public var maximumPushChanges = SyncAPI.defaultMaximumPushChanges
    /// The most changes one pull page may hold (`400` for a larger `limit`).
    public var maximumPageSize = SyncAPI.defaultMaximumPageSize
    /// The longest a request may wait for the database (`503` past it: ``RequestDeadline``).
    public var requestTimeout: Duration = .seconds(10)
    /// The longest a push body may take to arrive, all of it (`408` past it): a body sent a
    /// byte at a time counts as progress for the idle timeout, not for this one.
    public var bodyTimeout: Duration = .seconds(60)
    /// The most bytes of request bodies held at once across all connections (`503` for a
    /// body that finds no room: ``BodyBudget``): 64 MiB, sixteen full bodies.
    public var maximumBodyBytesInFlight = 64 << 20

    /// The default limits.
    public init() {}
}
