/// The sync service's paths and default limits (docs/SYNC-API.md), shared by the server
/// and the client.
public enum SyncAPI {
    /// `POST`: a batch of changes (``SyncPushRequest``).
    public static let pushPath = "/v1/sync/push"
    /// `GET`: a page of the user's feed (``SyncPullResponse``).
    public static let pullPath = "/v1/sync/pull"
    /// `GET`: server-sent events (`text/event-stream`): `event: feed` each time the user's
    /// feed moves (another device's push landed), so a device syncs at once instead of at
    /// its next interval.
    public static let eventsPath = "/v1/sync/events"
    /// `GET`: `{"status":"ok"}` while the service can read its database; no token needed.
    public static let healthPath = "/health"
    /// The most changes a push may carry, unless the server says otherwise.
    public static let defaultMaximumPushChanges = 1_000
    /// The most changes a pull page holds, unless the server says otherwise.
    public static let defaultMaximumPageSize = 1_000
    /// The largest request body, unless the server says otherwise: 4 MiB (a push of 1,000
    /// favorites at the engine's field limits is about 13 MiB; typical ones are 300 KiB).
    public static let defaultMaximumBodyBytes = 4 * 1024 * 1024
    /// The most bytes a pull page takes (``WireSize``'s bound): 8 MiB, so that a page with
    /// its largest possible change (about 80 KB of escaped texts) stays well within the
    /// 32 MiB a client reads (``maximumAnswerBytes``).
    public static let maximumPageBytes = 8 * 1024 * 1024
    /// The largest answer a client reads: four pages' worth. A page the service cuts by
    /// ``maximumPageBytes`` always fits.
    public static let maximumAnswerBytes = 32 * 1024 * 1024
    /// The most changes one sync takes from a service unless the user says otherwise
    /// (`archive sync --max-changes`): a million, several times a large collection, so that
    /// a service sending new favorites for ever fills no disk. A sync stopped there keeps
    /// what it applied; the next one goes on from it.
    public static let defaultMaximumChangesPerSync = 1_000_000
    /// How long one request to a service may take in all unless the user says otherwise
    /// (`--timeout`): connecting, sending, and the whole answer.
    public static let defaultRequestTimeout: Duration = .seconds(30)
}
