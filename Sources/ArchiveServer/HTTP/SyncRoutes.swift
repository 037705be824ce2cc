import ArchiveServerStorage
import ArchiveAPI
import ArchiveHTTPServer
import ArchiveSyncWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HTTPTypes
import NIOCore
import ArchiveSyncModel

/// The sync API's route group (docs/SYNC-API.md), at `/v1/sync`: `push`, `pull` and
/// `events`, for the user and device a bearer token names (``BearerAuthenticator``; no
/// identity is `401`, ``RequireIdentityMiddleware``). Refusals are ``Refusal``s and storage
/// failures ``ServerStorageError``s, answered by ``ErrorAnswerMiddleware``.
struct SyncRoutes: Sendable {
    let backend: any SyncBackend
    let limits: SyncServiceLimits
    /// The bytes of push bodies held at once, across connections.
    let bodyBudget: BodyBudget
    /// The push body's bounds, and what breaking each is answered.
    private var pushBody: RequestBodyMiddleware {
        let maximum = limits.maximumBodyBytes, timeout = limits.bodyTimeout
        return RequestBodyMiddleware(
            maximum: maximum, timeout: timeout, budget: bodyBudget,
            refusals: .init(
                tooLarge: { announced in
                    Refusal(
                        .contentTooLarge, announced.map { "the body is \($0) bytes; the limit is \(maximum): push fewer changes at a time" }
                            ?? "the body is larger than \(maximum) bytes: push fewer changes at a time", close: true)
                },
                late: {
                    Refusal(
                        .requestTimeout, "the body did not arrive within \(timeout.components.seconds) s; nothing was acknowledged: send it again, or push fewer changes at a time",
                        close: true)
                },
                busy: {
                    var busy = Refusal(
                        .serviceUnavailable,
                        "the server is receiving too many pushes at once; nothing was acknowledged: send the same push again shortly", close: true)
                    busy.headers[.retryAfter] = "\(StorageAnswer.retryAfterSeconds)"
                    return busy
                }))
    }
    /// Told of every push that lands a change, for the users' open event streams.
    let events: FeedEvents
    /// Unix milliseconds now: a pushed change stamped more than ``HybridTimestamp/maximumLead``
    /// ahead of it is refused.
    let wallClock: @Sendable () -> Int64

    /// The group's path.
    static let path: RouterPath = "v1/sync"

    /// The group's routes, behind its authenticator.
    func collection() -> RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        // A method not served is refused before the token is read (middleware applies to
        // the routes added after it).
        for (path, allowed) in [("push", [HTTPRequest.Method.post]), ("pull", [.get]), ("events", [.get])] {
            routes.refuse(RouterPath(path), allowing: allowed) { method, allowed in
                Refusal.methodNotAllowed(method, at: "/v1/sync/" + path, allowed: allowed)
            }
        }
        routes.add(middleware: BearerAuthenticator(backend: backend))
        routes.add(middleware: RequireIdentityMiddleware())
        // The body is read only once the token names someone, and the push's work with the
        // database gets the whole deadline once it has arrived.
        routes.group().add(middleware: pushBody).add(middleware: StorageDeadlineMiddleware(limit: limits.requestTimeout))
            .post("push") { request, context in try await push(request, context: context) }
        routes.get("pull") { request, context in try await pull(request, context: context) }
        routes.get("events") { request, context in try events(request, context: context) }
        return routes
    }

    private static func user(_ context: ServiceRequestContext) throws -> AuthenticatedUser {
        try context.requireIdentity(or: Refusal.unauthorized)
    }

    // MARK: - Push

    private func push(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try Self.user(context)
        let body = try await request.body.collect(upTo: .max)
        let push: SyncPushRequest
        do {
            push = try body.withUnsafeReadableBytes { try WireJSON.decode(SyncPushRequest.self, from: $0) }
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
            try await context.storageDeadline.run("applying a push of \(user.name)") {
                try await backend.push(changes, from: device, through: through, seen: seen, for: user)
            }
        }
        ServiceMetrics.pushed(answer)
        if answer.applied > 0 { events.publish(user: user.id) }
        return ServiceResponse.json(ServiceResponse.encode(answer))
    }

    // MARK: - Pull

    private func pull(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try Self.user(context)
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
        var page = try await ServiceMetrics.storageCall { [limit, cursor] in
            try await context.storageDeadline.run("reading a pull of \(user.name)") {
                try await backend.pull(for: user, device: device, after: cursor, limit: limit)
            }
        }
        ServiceMetrics.pulled(page.changes.count)
        page.maximumPushBytes = limits.maximumBodyBytes
        return ServiceResponse.json(ByteBuffer(bytes: WireJSON.encode(page)))
    }

    /// A whole number written in ASCII digits only (no sign, no spaces), or `nil`.
    private static func decimal(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }

    // MARK: - Events

    private func events(_ request: Request, context: ServiceRequestContext) throws -> Response {
        let user = try Self.user(context)
        guard let moves = events.subscribe(StreamIdentity(user)) else {
            var refusal = Refusal(.tooManyRequests, "\(user.name) has \(events.maximumStreamsPerUser) event streams open already: close one")
            refusal.headers[.retryAfter] = "60"
            throw refusal
        }
        return EventStream.response(moves, to: request)
    }
}
