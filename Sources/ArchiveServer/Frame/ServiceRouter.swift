public import ArchiveServerStorage
import ArchiveAPI
public import ArchiveHTTPServer
public import Hummingbird
public import Logging
import ArchiveSyncModel


/// `archive-server`'s routes and middleware on Hummingbird's `Router`, each concern
/// written once:
///
/// - around every route, outermost first: the request's log line (``RequestLogMiddleware``),
///   Hummingbird's `MetricsMiddleware` (by the router's endpoint path: a path of no route
///   is `NotFound`, never a series of its own), the framing rules (``FramingMiddleware``),
///   with a public URL only its host and loopback answered (``HostCheckMiddleware``),
///   `Strict-Transport-Security` over HTTPS (``TransportSecurityMiddleware``),
///   errors as JSON answers (``ErrorAnswerMiddleware``) and the request's deadline for
///   work with the database (``StorageDeadlineMiddleware``; a body is read within a bound
///   of its own, ``RequestBodyMiddleware``, on the routes that read one);
/// - the route groups, each a `RouteCollection` of its own: `/health` (``HealthRoutes``),
///   the API's OpenAPI document (``ContractRoutes``), the sync API at `/v1/sync` behind
///   its bearer authenticator (``SyncRoutes``), the catalog (``CatalogRoutes``) and the
///   page (``PageRoutes``: its headers, error pages and session authenticator).
public struct ServiceRouter: Sendable {
    let backend: any SyncBackend
    let limits: SyncServiceLimits
    let catalog: CatalogResponder<ServiceRequestContext>
    let events: FeedEvents
    let overHTTPS: Bool
    /// `--public-url`: only requests for its host (or loopback) are answered.
    let publicURL: String?
    let measured: Bool
    let logger: Logger
    let wallClock: @Sendable () -> Int64

    /// The routes of `backend`'s users within `limits`, and `catalog`; `events` hears of
    /// every push that lands. `overHTTPS`: browsers reach the page over HTTPS (the cookie
    /// is `Secure`, pages say `Strict-Transport-Security`); `publicURL`, the address they
    /// reach (`--public-url`): a request for another host is refused. `measured`: requests are
    /// counted (Hummingbird's `MetricsMiddleware`). Logs to `logger`; judges how far ahead a
    /// pushed stamp is by `wallClock` (the system's clock unless a test sets one).
    public init(
        backend: any SyncBackend, limits: SyncServiceLimits, catalog: CatalogResponder<ServiceRequestContext>, events: FeedEvents,
        overHTTPS: Bool, publicURL: String? = nil, measured: Bool = false, logger: Logger, wallClock: (@Sendable () -> Int64)? = nil
    ) {
        self.publicURL = publicURL
        self.backend = backend
        self.limits = limits
        self.catalog = catalog
        self.events = events
        self.overHTTPS = overHTTPS
        self.measured = measured
        self.logger = logger
        self.wallClock = wallClock ?? WallClock.system
    }

    /// The router, ready to answer.
    public func router() throws -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: logger))
        if measured { router.add(middleware: MetricsMiddleware()) }
        router.add(middleware: FramingMiddleware())
        if let publicURL, let check = HostCheckMiddleware(publicURL: publicURL) { router.add(middleware: check) }
        if overHTTPS { router.add(middleware: TransportSecurityMiddleware()) }
        router.add(middleware: ErrorAnswerMiddleware(logger: logger))
        router.add(middleware: StorageDeadlineMiddleware(limit: limits.requestTimeout))
        router.addRoutes(HealthRoutes(backend: backend).collection())
        router.addRoutes(ContractRoutes().collection())
        router.addRoutes(
            SyncRoutes(backend: backend, limits: limits, bodyBudget: BodyBudget(limit: limits.maximumBodyBytesInFlight), events: events, wallClock: wallClock)
                .collection(),
            atPath: SyncRoutes.path)
        router.addRoutes(CatalogRoutes(catalog: catalog).collection())
        let page = PageRoutes(
            backend: backend, events: events, limiter: SignInLimiter(), catalog: BundledArchiveRepository(), pages: try PageRenderer(logger: logger),
            limits: limits, cookies: WebSession.Cookies(secure: overHTTPS), logger: logger, wallClock: wallClock)
        router.addRoutes(page.collection())
        return router
    }
}
