import ArchiveAPI
public import ArchiveHTTPServer
import ArchiveSyncWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Hummingbird
import HTTPTypes
public import Logging
import NIOCore

/// The service's HTTP front (docs/SYNC-API.md): `/health`, the sync API for the user a
/// bearer token names, and the catalog (`/archive_images`, ``CatalogResponder``).
///
/// Every refusal is `{"error": "…"}` with the status that says why; an authentication
/// refusal is `401` with `WWW-Authenticate: Bearer` and says nothing more (a missing
/// header, a malformed one, an unknown, revoked or removed user's token look alike). A
/// refused request's body is never read: its answer says `Connection: close`.
/// Each request is logged (at `info`) with the ID Hummingbird gives it, its method, path
/// (never its query, which a careless client may put a token in), status and user; no token
/// is logged. What requests did is counted (``ServiceMetrics``).
public struct SyncResponder: HTTPResponder {
    public typealias Context = ServiceRequestContext

    let backend: any SyncBackend
    let limits: SyncServiceLimits
    /// The bytes of push bodies held at once, across connections.
    let bodyBudget: BodyBudget
    let catalog: CatalogResponder
    /// The web page (`/`, `/favorites`, `/signin`, `/web/…`), when served.
    let web: WebResponder?
    /// Told of every push that lands a change, for the users' open event streams.
    let events: FeedEvents?
    let logger: Logger
    /// Unix milliseconds now: a pushed change stamped more than ``HybridTimestamp/maximumLead``
    /// ahead of it is refused.
    let wallClock: @Sendable () -> Int64

    /// Serves `backend`'s users within `limits`, and `catalog`; logs to `logger`; judges how
    /// far ahead a pushed stamp is by `wallClock` (the system's clock unless a test sets one).
    /// `web`, when given, serves the web page, and `events` hears of every push that lands.
    public init(
        backend: any SyncBackend, limits: SyncServiceLimits, catalog: CatalogResponder, web: WebResponder? = nil, events: FeedEvents? = nil,
        logger: Logger, wallClock: (@Sendable () -> Int64)? = nil
    ) {
        self.backend = backend
        self.limits = limits
        self.bodyBudget = BodyBudget(limit: limits.maximumBodyBytesInFlight)
        self.catalog = catalog
        self.web = web
        self.events = events
        self.logger = logger
        self.wallClock = wallClock ?? SQLiteStoredArchiveDataRepository.systemClock
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        // Hummingbird's ID of the request: in its log line and in a 500's answer.
        let requestID = context.id
        // The route, for the request metrics (a path of no route stays "Unknown": any path a
        // client sends must not become a series of its own).
        if let route = Self.route(of: request.uri.path) { context.coreContext.endpointPath.value = route }
        var user: String?
        var bodyRead = false
        var response: Response
        do {
            response = try await route(request, context: context, user: &user, bodyRead: &bodyRead)
        } catch let refusal as Refusal {
            response = refusal.response
            ServiceMetrics.refused(status: Int(response.status.code))
        } catch let error as ServerStorageError {
            response = Self.response(to: error, requestID: requestID)
            switch response.status.code {
            case 500: ServiceMetrics.storageError("failed")
            case 503: ServiceMetrics.storageError("unavailable")
            case 507: ServiceMetrics.storageError("full")
            default: ServiceMetrics.refused(status: Int(response.status.code))
            }
            if response.status == .internalServerError {
                logger.error("request failed", metadata: ["request": "\(requestID)", "error": "\(error)"])
            } else {
                logger.warning("request refused", metadata: ["request": "\(requestID)", "error": "\(error)"])
            }
        } catch {
            logger.error("request failed", metadata: ["request": "\(requestID)", "error": "\(error)"])
            response = Self.internalError(requestID: requestID)
            ServiceMetrics.storageError("failed")
        }
        // A body the request did not need (a GET with one) is never read: the connection
        // closes after the answer, so a body trickled a byte at a time holds no slot.
        if !bodyRead, ServiceResponse.announcesBody(request) { response.headers[.connection] = "close" }
        // The metadata is an autoclosure: built only when the log level lets the line out.
        logger.info("request", metadata: Self.metadata(of: request, id: requestID, status: response.status.code, user: user))
        return response
    }

    /// A request's log line's metadata: its ID, method, path, answer's status and user.
    private static func metadata(of request: Request, id: String, status: Int, user: String?) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "request": "\(id)", "method": "\(request.method.rawValue)", "path": "\(request.uri.path)", "status": "\(status)",
        ]
        if let user { metadata["user"] = "\(user)" }
        return metadata
    }

    private func route(_ request: Request, context: Context, user: inout String?, bodyRead: inout Bool) async throws -> Response {
        // The answer to a CONNECT goes out with no length and no body (SwiftNIO frames it as a
        // tunnel's): only the connection's end can frame it, so it is closed after the refusal.
        if request.method == .connect {
            var refusal = Refusal(.methodNotAllowed, "CONNECT is not served: this is not a proxy", request: request, close: true)
            refusal.headers[.allow] = "GET, HEAD, POST"
            throw refusal
        }
        let path = request.uri.path
        if path == "/" + CatalogResponder.collection || path.hasPrefix("/" + CatalogResponder.collection + "/") {
            return try await catalog.respond(to: request, context: context)
        }
        if let web, WebResponder.serves(path) {
            return try await web.respond(to: request, context: context, user: &user, bodyRead: &bodyRead)
        }
        switch path {
        case SyncAPI.healthPath:
            try Self.require(.get, .head, of: request)
            guard await backend.isHealthy() else {
                return ServiceResponse.error("the database does not answer", status: .serviceUnavailable)
            }
            return ServiceResponse.json(ServiceResponse.encode(["status": "ok"]))
        case SyncAPI.pushPath:
            try Self.require(.post, of: request)
            let authenticated = try await authenticate(request)
            user = authenticated.name
            return try await push(request, user: authenticated, bodyRead: &bodyRead)
        case SyncAPI.pullPath:
            try Self.require(.get, of: request)
            let authenticated = try await authenticate(request)
            user = authenticated.name
            return try await pull(request, user: authenticated)
        case SyncAPI.eventsPath:
            try Self.require(.get, of: request)
            let authenticated = try await authenticate(request)
            user = authenticated.name
            guard let events else { throw Refusal(.notFound, "this server sends no events: sync at intervals") }
            guard let moves = events.subscribe(user: authenticated.id) else {
                var refusal = Refusal(.tooManyRequests, "\(authenticated.name) has \(events.maximumStreamsPerUser) event streams open already: close one")
                refusal.headers[.retryAfter] = "60"
                throw refusal
            }
            return EventStream.response(moves)
        default:
            throw Refusal(.notFound, "nothing at \(path): the sync API is at \(SyncAPI.pushPath) and \(SyncAPI.pullPath), the catalog at /\(CatalogResponder.collection)", request: request)
        }
    }

    // MARK: - Sync

    private func push(_ request: Request, user: AuthenticatedUser, bodyRead: inout Bool) async throws -> Response {
        let announced = request.headers[.contentLength].flatMap { Int($0) }
        if let length = announced, length > limits.maximumBodyBytes {
            throw Refusal(.contentTooLarge, "the body is \(length) bytes; the limit is \(limits.maximumBodyBytes): push fewer changes at a time", request: request)
        }
        let reservation = bodyBudget.reservation()
        defer { reservation.end() }
        var busy = Refusal(
            .serviceUnavailable,
            "the server is receiving too many pushes at once; nothing was acknowledged: send the same push again shortly", close: true)
        busy.headers[.retryAfter] = "\(Self.retryAfterSeconds)"
        // A body whose length is announced reserves it all before a byte is read.
        if let announced, !reservation.take(announced) { throw busy }
        let maximum = limits.maximumBodyBytes, timeout = limits.bodyTimeout, stream = request.body
        let tooLarge = Refusal(.contentTooLarge, "the body is larger than \(maximum) bytes: push fewer changes at a time", close: true)
        let late = Refusal(
            .requestTimeout, "the body did not arrive within \(timeout.components.seconds) s; nothing was acknowledged: send it again, or push fewer changes at a time",
            close: true)
        let body = try await RequestBodyReader.collect(stream, maximum: maximum, within: timeout, tooLarge: tooLarge, late: late) { [busy] size in
            if announced == nil, !reservation.take(size) { throw busy }
        }
        bodyRead = true
        let push: SyncPushRequest
        do {
            push = try JSONDecoder().decode(SyncPushRequest.self, from: Data(body.readableBytesView))
        } catch {
            throw Refusal(.badRequest, "the body is not a push (JSON {\"device\", \"through\", \"changes\"} in UTF-8): \(WireDecodingFailure.describe(error))")
        }
        guard push.changes.count <= limits.maximumPushChanges else {
            throw Refusal(.contentTooLarge, "the push has \(push.changes.count) changes; the limit is \(limits.maximumPushChanges): push them in batches")
        }
        guard let device = DeviceID(hex: push.device) else { throw Refusal(.badRequest, "device must be 32 hexadecimal digits") }
        guard push.through >= 0 else { throw Refusal(.badRequest, "through must not be negative, got \(push.through)") }
        guard push.seen >= 0 else { throw Refusal(.badRequest, "seen must not be negative, got \(push.seen)") }
        let changes: [FavoriteChange]
        do {
            changes = try push.checkedChanges(receivedAt: wallClock())
        } catch {
            throw Refusal(.badRequest, "\(error)")
        }
        let backend = self.backend, seen = push.seen, through = push.through
        let answer = try await ServiceMetrics.storageCall {
            try await RequestDeadline.run(limits.requestTimeout, "applying a push of \(user.name)") {
                try await backend.push(changes, from: device, through: through, seen: seen, for: user)
            }
        }
        ServiceMetrics.pushed(answer)
        if answer.applied > 0 { events?.publish(user: user.id) }
        return ServiceResponse.json(ServiceResponse.encode(answer))
    }

    private func pull(_ request: Request, user: AuthenticatedUser) async throws -> Response {
        let items: [QueryString.Item]
        do {
            items = try QueryString.decode(Substring(request.uri.query ?? ""))
        } catch {
            throw Refusal(.badRequest, "the query cannot be read: \(error)")
        }
        var device: DeviceID?
        var cursor: Int64 = 0
        var limit = limits.maximumPageSize
        var seen: Set<String> = []
        for item in items {
            guard seen.insert(item.name).inserted else { throw Refusal(.badRequest, "\(item.name) is given twice") }
            switch item.name {
            case "device":
                guard let id = DeviceID(hex: item.value) else { throw Refusal(.badRequest, "device must be 32 hexadecimal digits") }
                device = id
            case "cursor":
                guard let value = Self.decimal(item.value) else {
                    throw Refusal(.badRequest, "cursor must be a whole number from 0 (the one the last pull answered), got \(item.value.prefix(40).debugDescription)")
                }
                cursor = value
            case "limit":
                guard let value = Self.decimal(item.value), (0...Int64(limits.maximumPageSize)).contains(value) else {
                    throw Refusal(.badRequest, "limit must be from 0 (no changes: only the feed and how far you pushed) to \(limits.maximumPageSize), got \(item.value.prefix(40).debugDescription)")
                }
                limit = Int(value)
            default:
                throw Refusal(.badRequest, "unknown parameter \(item.name.prefix(40).debugDescription): a pull takes device, cursor and limit")
            }
        }
        guard let device else { throw Refusal(.badRequest, "device is missing: pull?device=<your device ID>&cursor=N") }
        let backend = self.backend
        var page = try await ServiceMetrics.storageCall { [limits, limit, cursor] in
            try await RequestDeadline.run(limits.requestTimeout, "reading a pull of \(user.name)") {
                try await backend.pull(for: user, device: device, after: cursor, limit: limit)
            }
        }
        ServiceMetrics.pulled(page.changes.count)
        page.maximumPushBytes = limits.maximumBodyBytes
        return ServiceResponse.json(ServiceResponse.encode(page))
    }

    /// What a client is asked to wait before sending a request the database could not take
    /// (`Retry-After`), in seconds.
    static let retryAfterSeconds = 2

    /// The answer to a storage failure: a token used by a device it does not serve `403`, a
    /// device forgotten since its cursor `410`, a stale push `409`, a database out of reach or past
    /// the request's deadline `503`, a full disk `507` (both with `Retry-After`: nothing was
    /// acknowledged, the same request may be sent again), anything else `500`. The `503` and
    /// `507` bodies say what the client can do, the `500`'s the request's ID, and nothing of
    /// the server's inside (its file's path, PostgreSQL's words): those go to the log.
    static func response(to error: ServerStorageError, requestID: String) -> Response {
        var response: Response
        switch error {
        case .stalePush:
            return ServiceResponse.error(error.description, status: .conflict)
        case .forgottenDevice:
            return ServiceResponse.error(error.description, status: .gone)
        case .tokenOfAnotherDevice:
            // The token is good, for another device: saying so tells its holder nothing new.
            return ServiceResponse.error(error.description, status: .forbidden)
        case .noSuchUser:
            // Removed (or removed and added again) after its token was checked: the token
            // no longer names a user, and the answer is every authentication failure's.
            var refusal = ServiceResponse.error("unauthorized", status: .unauthorized)
            refusal.headers[.wwwAuthenticate] = "Bearer"
            return refusal
        case .unavailable:
            response = ServiceResponse.error(
                "the server's database is unavailable now; nothing was acknowledged: send the same request again shortly",
                status: .serviceUnavailable)
        case .storageFull:
            response = ServiceResponse.error(
                "the server's disk is full; nothing was written: try again later",
                status: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"))
        default:
            return internalError(requestID: requestID)
        }
        response.headers[.retryAfter] = "\(retryAfterSeconds)"
        return response
    }

    /// A `500`: nothing of the failure (a path, SQL, PostgreSQL's words), only the request's
    /// ID, under which the log says what failed.
    static func internalError(requestID: String) -> Response {
        ServiceResponse.error(
            "the server failed to answer this request (request \(requestID) in its log); try again later",
            status: .internalServerError)
    }

    /// The status code of ``response(to:requestID:)``'s answer to `error`.
    package static func statusCode(answering error: ServerStorageError) -> Int {
        Int(response(to: error, requestID: "0").status.code)
    }

    // MARK: - Checks

    /// The user the request's `Authorization: Bearer <token>` names, or a `401`. Only the
    /// header counts: a token in the query string is never read.
    private func authenticate(_ request: Request) async throws -> AuthenticatedUser {
        let values = request.headers[values: .authorization]
        guard values.count == 1, let header = values.first, header.utf8.count <= 512 else { throw Refusal.unauthorized(request) }
        let scheme = header.prefix(7)
        guard scheme.lowercased() == "bearer " else { throw Refusal.unauthorized(request) }
        let token = header.dropFirst(7)
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw Refusal.unauthorized(request) }
        let user: AuthenticatedUser?
        do {
            let backend = self.backend, token = AccessToken(text: String(token))
            user = try await RequestDeadline.run(limits.requestTimeout, "checking a token") { try await backend.authenticate(token) }
        } catch {
            var refusal = Refusal(.serviceUnavailable, "the server cannot read its users now; try again", request: request)
            refusal.headers[.retryAfter] = "\(Self.retryAfterSeconds)"
            throw refusal
        }
        guard let user else { throw Refusal.unauthorized(request) }
        return user
    }

    private static func require(_ methods: HTTPRequest.Method..., of request: Request) throws {
        guard methods.contains(request.method) else {
            var refusal = Refusal(.methodNotAllowed, "\(request.method.rawValue) is not served at \(request.uri.path): use \(methods.map(\.rawValue).joined(separator: " or "))", request: request)
            refusal.headers[.allow] = methods.map(\.rawValue).joined(separator: ", ")
            throw refusal
        }
    }

    /// A whole number written in ASCII digits only (no sign, no spaces), or `nil`.
    private static func decimal(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }

    /// The route a path is served by, for the request metrics; `nil` for a path of none.
    static func route(of path: String) -> String? {
        switch path {
        case SyncAPI.healthPath, SyncAPI.pushPath, SyncAPI.pullPath, SyncAPI.eventsPath: path
        case "/" + CatalogResponder.collection: path
        case _ where WebResponder.serves(path): path
        case _ where path.hasPrefix("/" + CatalogResponder.collection + "/"): "/" + CatalogResponder.collection + "/{id}"
        default: nil
        }
    }
}
