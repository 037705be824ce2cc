public import ArchiveServerStorage
public import Hummingbird
public import HummingbirdAuth
public import NIOCore

/// The context of each request `archive-server` answers: Hummingbird's basics, the address
/// the connection comes from (the page's sign-in limit counts by it), the identity an
/// authenticator found (``BearerAuthenticator`` on the sync API, ``SessionAuthenticator``
/// on the page), the ``RequestRecord`` the middleware around the routes read, and the
/// request's ``StorageDeadline``.
public struct ServiceRequestContext: AuthRequestContext, RemoteAddressRequestContext {
    /// Hummingbird's own per-request storage (its ID, logger, route).
    public var coreContext: CoreRequestContextStorage
    /// The peer's address, when the channel knows it.
    public let remoteAddress: SocketAddress?
    /// The user and device the request's token or session names, once authenticated.
    public var identity: AuthenticatedUser?
    /// What the request did, for the middleware that wraps it (a context is copied on its
    /// way in; this is shared by every copy).
    public let record: RequestRecord
    /// When the request's work with the database must end (``StorageDeadlineMiddleware``
    /// sets it; until then the default ``SyncServiceLimits/requestTimeout`` from the
    /// request's start).
    public internal(set) var storageDeadline: StorageDeadline

    /// The context of a request that arrived on `source`'s channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        identity = nil
        record = RequestRecord()
        storageDeadline = StorageDeadline(limit: SyncServiceLimits().requestTimeout)
    }

    /// The authenticated identity, or the refusal every route of a group that needs one
    /// answers (`refusal`).
    func requireIdentity(or refusal: @autoclosure () -> any Error) throws -> AuthenticatedUser {
        guard let identity else { throw refusal() }
        return identity
    }
}
