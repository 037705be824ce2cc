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

    /// The default limits.
    public init() {}
}
