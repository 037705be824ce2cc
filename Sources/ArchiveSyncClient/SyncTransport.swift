public import ArchiveSyncWire
public import ArchiveSyncModel

/// What carries a sync to a service and back: HTTP in `archive` (`HTTPSyncTransport`),
/// anything in tests. Errors are ``SyncTransportError``s.
public protocol SyncTransport: Sendable {
    /// `GET /v1/sync/pull`: up to `limit` changes of the user's feed after `cursor` (0: only
    /// the feed and how far `device` pushed).
    func pull(device: DeviceID, cursor: Int64, limit: Int) async throws -> SyncPullResponse
    /// `POST /v1/sync/push`.
    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse
}
