public import Hummingbird
public import NIOCore

/// The context of each request `archive-server` answers: Hummingbird's basics, and the
/// address the connection comes from (the web page's sign-in limit counts by it).
public struct ServiceRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's own per-request storage (its ID, logger, route).
    public var coreContext: CoreRequestContextStorage
    /// The peer's address, when the channel knows it.
    public let remoteAddress: SocketAddress?

    /// The context of a request that arrived on `source`'s channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
