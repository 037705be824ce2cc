public import ArchiveAPI
public import ArchiveHTTPServer
import ArchiveSearch
import ArchiveStorage
import ArchiveSyncWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Hummingbird
import HTTPTypes
public import Logging
import Mustache
import NIOCore

/// The Archive screen as a web page (docs/WEB.md): signed in by a one-time link as a device
/// of its own, it searches the catalog, hearts dishes (changes of that device, stamped and
/// merged by the one rule) and lists the favorites; an event stream tells it when another
/// device's push lands.
///
/// Pages are rendered on the server (``WebTemplates``); the one script (``WebAssets``) only
/// makes them quicker. Every answer carries a Content-Security-Policy that runs no inline
/// script; every change (a heart, signing out, signing in) is a `POST` that must come from
/// this origin and, once signed in, carry the session's CSRF token.
public struct WebResponder: Sendable {
    let backend: any SyncBackend
    let events: FeedEvents
    let limiter: SignInLimiter
    let catalog: BundledArchiveRepository
    let templates: MustacheLibrary
    let limits: SyncServiceLimits
    /// Whether the service is served over TLS (the cookie is `Secure`).
    let secure: Bool
    let logger: Logger
    /// Unix milliseconds now.
    let wallClock: @Sendable () -> Int64

    /// The paths this responder answers.
    static let pagePaths: Set<String> = ["/", "/favorites", "/signin", "/web/heart", "/web/signout", "/web/events", "/web/app.js", "/web/app.css"]

    /// The most favorites a page of the Favorites screen shows.
    static let pageSize = 50
    /// The most favorites one page of a search looks through (about 20 ms of SQLite's time;
    /// docs/PERFORMANCE.md): past it the page says so and the next one goes on.
    static let searchWindow = 20_000
    /// The largest form body a page sends.
    static let maximumFormBytes = 4_096

    /// The page for `backend`'s users, telling open pages of `events`; sign-ins limited by
    /// `limiter`; the dishes of `catalog`.
    public init(
        backend: any SyncBackend, events: FeedEvents, limiter: SignInLimiter = SignInLimiter(),
        catalog: BundledArchiveRepository = BundledArchiveRepository(), limits: SyncServiceLimits, secure: Bool, logger: Logger,
        wallClock: (@Sendable () -> Int64)? = nil
    ) throws {
        self.backend = backend
        self.events = events
        self.limiter = limiter
        self.catalog = catalog
        self.templates = try WebTemplates.library()
        self.limits = limits
        self.secure = secure
        self.logger = logger
        self.wallClock = wallClock ?? SQLiteStoredArchiveDataRepository.systemClock
    }

    /// Whether `path` is one of the page's.
    public static func serves(_ path: String) -> Bool { pagePaths.contains(path) }

    /// The answer to `request` at one of ``pagePaths``; `user` is set to the signed-in
    /// user's name (for the log), `bodyRead` once the request's body was read.
    public func respond(to request: Request, context: ServiceRequestContext, user: inout String?, bodyRead: inout Bool) async throws -> Response {
        var response: Response
        do {
            response = try await route(request, context: context, user: &user, bodyRead: &bodyRead)
        } catch let page as WebRefusal {
            response = render("message", ["title": page.title, "text": page.text, "back": page.back as Any], status: page.status)
            if page.status == .tooManyRequests { response.headers[.retryAfter] = "60" }
            if page.close { response.headers[.connection] = "close" }
            if page.clearsSession { response.headers[.setCookie] = WebSession.clearCookie(secure: secure) }
        } catch let error as ServerStorageError {
            // The sync API's status for the failure, as a page; what failed goes to the log only.
            let status = SyncResponder.statusCode(answering: error)
            logger.error("page request failed", metadata: ["request": "\(context.id)", "error": "\(error)"])
            let text = switch status {
            case 503, 507: "The server cannot store or read favorites just now; nothing was changed. Try again in a moment."
            case 401: "This browser is not signed in (or its session ended): open a new sign-in link."
            default: "The server failed to answer this page (request \(context.id) in its log). Try again later."
            }
            response = render("message", ["title": "Not now", "text": text, "back": "/"], status: HTTPResponse.Status(code: status))
            if status == 503 || status == 507 { response.headers[.retryAfter] = "\(SyncResponder.retryAfterSeconds)" }
        }
        Self.secureHeaders(&response.headers)
        return response
    }

    private func route(_ request: Request, context: ServiceRequestContext, user: inout String?, bodyRead: inout Bool) async throws -> Response {
        switch (request.uri.path, request.method) {
        case ("/web/app.css", .get), ("/web/app.css", .head):
            return asset(WebAssets.stylesheet, type: "text/css; charset=utf-8")
        case ("/web/app.js", .get), ("/web/app.js", .head):
            return asset(WebAssets.script, type: "text/javascript; charset=utf-8")
        case ("/signin", .get):
            let link = try query(of: request)["link"] ?? ""
            return render("signin", ["title": "Sign in", "link": link])
        case ("/signin", .post):
            try checkOrigin(request)
            let form = try await readForm(request, bodyRead: &bodyRead)
            return try await signIn(form["link"] ?? "", context: context)
        case ("/", .get), ("/", .head), ("/favorites", .get), ("/favorites", .head):
            guard let session = try await session(of: request) else {
                var page = render("message", [
                    "title": "Not signed in",
                    "text": "Open the sign-in link for this browser: on the server, archive-server devices link USER LABEL prints one (it works once, for 10 minutes).",
                ], status: .ok)
                if request.cookies[WebSession.cookieName] != nil { page.headers[.setCookie] = WebSession.clearCookie(secure: secure) }
                return page
            }
            user = session.user.name
            let query = try query(of: request)
            return request.uri.path == "/" ? try await archive(query, session: session) : try await favorites(query, session: session)
        case ("/web/heart", .post):
            try checkOrigin(request)
            let session = try await requireSession(request)
            user = session.user.name
            let form = try await readForm(request, bodyRead: &bodyRead)
            try checkCSRF(request, form: form, session: session)
            return try await heart(form, request: request, session: session)
        case ("/web/signout", .post):
            try checkOrigin(request)
            let session = try await requireSession(request)
            user = session.user.name
            let form = try await readForm(request, bodyRead: &bodyRead)
            try checkCSRF(request, form: form, session: session)
            try await RequestDeadline.run(limits.requestTimeout, "signing out") { [backend] in try await backend.endSession(session.user) }
            var response = Response(status: .seeOther, headers: [.location: "/"])
            response.headers[.setCookie] = WebSession.clearCookie(secure: secure)
            return response
        case ("/web/events", .get):
            let session = try await requireSession(request)
            user = session.user.name
            return try stream(for: session.user)
        default:
            let allowed = ["/signin", "/web/heart", "/web/signout"].contains(request.uri.path) ? (request.uri.path == "/signin" ? "GET, POST" : "POST") : "GET, HEAD"
            var refusal = render("message", ["title": "Not allowed", "text": "\(request.method.rawValue) is not served at this address."], status: .methodNotAllowed)
            refusal.headers[.allow] = allowed
            return refusal
        }
    }

    // MARK: - Sessions

    /// A signed-in browser: its device's user (and bound device), and the CSRF token of its session.
    struct Session: Sendable {
        let user: AuthenticatedUser
        let device: DeviceID
        let csrf: String
    }

    private func session(of request: Request) async throws -> Session? {
        guard let token = WebSession.token(of: request) else { return nil }
        let backend = self.backend
        let user = try await RequestDeadline.run(limits.requestTimeout, "checking a session") { try await backend.authenticate(token) }
        // Only a browser's session (made by a sign-in link, its device bound from the start)
        // signs a page in: a CLI device's token pasted into a cookie would stamp the page's
        // hearts with that device's ID, beside the device's own changes.
        guard let user, user.isBrowserSession, let device = user.boundDevice else { return nil }
        return Session(user: user, device: device, csrf: WebSession.csrfToken(of: token))
    }

    private func requireSession(_ request: Request) async throws -> Session {
        guard let session = try await session(of: request) else {
            throw WebRefusal(.unauthorized, "Not signed in", "This browser is not signed in (or its session ended): open a new sign-in link.", back: "/", clearsSession: true)
        }
        return session
    }

    private func signIn(_ link: String, context: ServiceRequestContext) async throws -> Response {
        let address = context.remoteAddress?.ipAddress ?? "unknown"
        let now = wallClock()
        if let wait = limiter.wait(for: address, now: now) {
            throw WebRefusal(.tooManyRequests, "Too many sign-ins", "Too many sign-in links that did not work came from this address: wait \((wait + 999) / 1000) s, then open a new link.")
        }
        let refused = WebRefusal(
            .forbidden, "This link does not sign in",
            "This sign-in link was used already, is past its 10 minutes, or is not one: on the server, archive-server devices link USER LABEL makes a new one.")
        guard link.hasPrefix(AccessToken.prefix), link.utf8.count == AccessToken.prefix.utf8.count + 43 else {
            limiter.failed(address, now: now)
            throw refused
        }
        let session = AccessToken.generate()
        let device = DeviceID.random()
        let end = now + WebSession.lifetimeSeconds * 1000
        let backend = self.backend, secret = AccessToken(text: link)
        let outcome = try await RequestDeadline.run(limits.requestTimeout, "using a sign-in link") {
            try await backend.redeemSignInLink(secret, device: device, session: session, sessionEnd: end)
        }
        switch outcome {
        case .signedIn(let user, let label):
            logger.notice("signed in a browser", metadata: ["user": "\(user)", "device": "\(label)"])
            var response = Response(status: .seeOther, headers: [.location: "/"])
            response.headers[.setCookie] = WebSession.setCookie(session, secure: secure)
            return response
        case .labelTaken(let user, let label):
            throw WebRefusal(.conflict, "This link does not sign in", "\(user) has a device labelled \(label) already (added since the link was made): make a new link with another label.")
        case .refused:
            limiter.failed(address, now: now)
            throw refused
        }
    }

    // MARK: - Screens

    private func archive(_ query: [String: String], session: Session) async throws -> Response {
        let keyword = try Self.keyword(query["q"])
        let categories = try await catalog.categories()
        let category = query["category"].flatMap { categories.contains($0) ? $0 : nil } ?? ""
        let found = try await catalog.getArchiveResponse(keyword: keyword, category: category)
        let backend = self.backend, ids = found.map(\.id)
        let held = try await RequestDeadline.run(limits.requestTimeout, "reading favorites") {
            try await backend.held(ids, of: session.user)
        }
        let search = SearchKeyword(keyword)
        let back = Self.searchPath(keyword: keyword, category: category)
        let results: [[String: Any]] = found.map { dish in
            var row = card(id: dish.id, photoUrl: dish.photoUrl, dishName: dish.dishName, shopName: dish.shopName, category: dish.category, keyword: search, back: back)
            row["stored"] = Self.isStored(held.changes[dish.id])
            return row
        }
        var chips: [[String: Any]] = [["name": "All", "href": Self.searchPath(keyword: keyword, category: ""), "selected": category.isEmpty]]
        chips += categories.map { ["name": $0, "href": Self.searchPath(keyword: keyword, category: $0), "selected": $0 == category] }
        return render("archive", [
            "title": keyword.isEmpty ? "Search" : keyword, "onSearch": true, "session": sessionView(session, lastSync: held.lastSync),
            "keyword": keyword, "category": category, "chips": chips, "results": results,
            "count": found.count == 1 ? "1 dish" : "\(found.count) dishes",
        ])
    }

    private func favorites(_ query: [String: String], session: Session) async throws -> Response {
        let keyword = try Self.keyword(query["q"])
        var after: FavoritesPosition?
        if let text = query["after"] {
            guard let position = FavoritesPosition(text) else {
                throw WebRefusal(.badRequest, "Not a page", "This page's address is not one the Favorites screen makes.", back: "/favorites")
            }
            after = position
        }
        let backend = self.backend, size = Self.pageSize, start = after, window = Self.searchWindow
        let page = try await RequestDeadline.run(limits.requestTimeout, "reading favorites") {
            try await backend.favorites(of: session.user, matching: keyword, after: start, limit: size, window: window)
        }
        let search = SearchKeyword(keyword)
        let back = "/favorites" + (keyword.isEmpty ? "" : "?q=" + Self.percentEncoded(keyword))
        var results: [[String: Any]] = page.favorites.map { object in
            card(id: object.id, photoUrl: object.photoUrl, dishName: object.dishName, shopName: object.shopName, category: object.category, keyword: search, back: back)
        }
        for index in results.indices { results[index]["stored"] = true }
        var view: [String: Any] = [
            "title": "Favorites", "onFavorites": true, "session": sessionView(session, lastSync: page.lastSync),
            "keyword": keyword, "results": results,
            "count": Self.favoritesCount(page, searching: !keyword.isEmpty, first: after == nil),
        ]
        if let next = page.next {
            view["moreLabel"] = page.partial ? "Search older favorites" : "Older favorites"
            view["more"] = "/favorites?" + (keyword.isEmpty ? "" : "q=" + Self.percentEncoded(keyword) + "&") + "after=" + next.description
        }
        return render("favorites", view)
    }

    /// The line above the favorites: what the page shows.
    static func favoritesCount(_ page: FavoritesPage, searching: Bool, first: Bool) -> String {
        if page.partial {
            return (page.favorites.isEmpty ? "No matches" : "\(page.favorites.count) matching") + " among the next \(searchWindow) favorites; older ones next"
        }
        if page.favorites.isEmpty { return searching ? "No matches" : (first ? "No favorites yet" : "No older favorites") }
        return first ? "Newest first" : "Older favorites"
    }

    private func card(id: Int, photoUrl: String, dishName: String, shopName: String, category: String, keyword: SearchKeyword, back: String) -> [String: Any] {
        let segments: [[String: Any]] = keyword.segments(of: dishName).map { ["text": String($0.text), "hit": $0.isMatch] }
        var row: [String: Any] = ["id": id, "dishName": dishName, "shopName": shopName, "category": category, "dish": segments, "back": back]
        // Only an https photo is shown (the policy allows no other); any other is the placeholder.
        if photoUrl.hasPrefix("https://"), photoUrl.utf8.count <= 2_048 { row["photoUrl"] = photoUrl }
        return row
    }

    private func sessionView(_ session: Session, lastSync: Int64?) -> [String: Any] {
        var view: [String: Any] = ["csrf": session.csrf, "user": session.user.name, "device": session.user.device]
        if let lastSync {
            let iso = Date(millisecondsSince1970: lastSync).iso8601Milliseconds
            view["lastSync"] = ["iso": iso, "shown": String(iso.prefix(16)).replacing("T", with: " ") + " UTC"]
        }
        return view
    }

    // MARK: - Hearts

    private func heart(_ form: [String: String], request: Request, session: Session) async throws -> Response {
        guard let idText = form["id"], let id = Int(idText), id > 0, let keepText = form["keep"], keepText == "1" || keepText == "0" else {
            throw WebRefusal(.badRequest, "Not a heart", "A heart names a dish (id) and whether to keep it (keep=1 or 0).")
        }
        let keep = keepText == "1"
        let backend = self.backend, user = session.user
        let held = try await RequestDeadline.run(limits.requestTimeout, "reading a favorite") { try await backend.held([id], of: user) }
        let current = held.changes[id]
        var isStored = Self.isStored(current)
        if keep != isStored {
            let state: FavoriteChange.State
            if keep {
                guard let dish = try? await catalog.getArchiveEntity(id: id) else {
                    throw WebRefusal(.notFound, "No such dish", "The catalog has no dish \(id).")
                }
                state = .stored(StoredArchiveObject(
                    id: dish.id, photoUrl: dish.photoUrl, category: dish.category, dishName: dish.dishName, shopName: dish.shopName,
                    introduction: dish.introduction, storedAt: Date(millisecondsSince1970: wallClock())))
            } else {
                state = .removed
            }
            // Later than what the user holds for the dish, so it wins the merge unless a
            // device's change lands first with a later stamp (then that one holds).
            let time = HybridTimestamp.next(after: current?.stamp.time ?? HybridTimestamp(rawValue: 0), wallClock: wallClock())
            let change = FavoriteChange(id: id, stamp: ChangeStamp(time: time, device: session.device), state: state)
            let seen = held.position
            let answer = try await RequestDeadline.run(limits.requestTimeout, "applying a heart of \(user.name)") {
                let answer = try await backend.push([change], from: session.device, through: 0, seen: seen, for: user)
                // The page has applied the feed through what it read: the device holds no
                // removal back from before it (a device registered by its push would
                // otherwise hold every later removal until it pulled).
                _ = try await backend.pull(for: user, device: session.device, after: seen, limit: 1)
                return answer
            }
            if answer.applied > 0 {
                events.publish(user: user.id)
                isStored = keep
            } else {
                let after = try await RequestDeadline.run(limits.requestTimeout, "reading a favorite") { try await backend.held([id], of: user) }
                isStored = Self.isStored(after.changes[id])
            }
        }
        if request.headers[.accept]?.contains("application/json") == true {
            return ServiceResponse.json(ServiceResponse.encode(HeartAnswer(id: id, stored: isStored)))
        }
        // Followed only when it is a path of this site in printable ASCII (the page's own are
        // percent-encoded): never another host (`//…`, `/\…`), never a header's line break.
        let back = form["back"].flatMap { back in
            back.hasPrefix("/") && !back.hasPrefix("//") && back.utf8.count <= 1_024
                && back.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") } ? back : nil
        } ?? "/"
        return Response(status: .seeOther, headers: [.location: back])
    }

    /// Whether `change` holds the favorite stored (not removed, nor never stored).
    static func isStored(_ change: FavoriteChange?) -> Bool {
        if case .stored? = change?.state { true } else { false }
    }

    /// What a heart's script request is answered: the state that holds after the merge.
    struct HeartAnswer: Encodable {
        let id: Int
        let stored: Bool
    }

    // MARK: - Live

    private func stream(for user: AuthenticatedUser) throws -> Response {
        guard let moves = events.subscribe(user: user.id) else {
            throw WebRefusal(.tooManyRequests, "Too many open pages", "This user has \(events.maximumStreamsPerUser) pages listening already: close one.")
        }
        return EventStream.response(moves)
    }

    // MARK: - Requests

    /// A page's change must come from this origin: a cross-site `Sec-Fetch-Site`, or an
    /// `Origin` of another host, is refused before anything else (the session's cookie is
    /// `SameSite=Strict` too). `Origin: null` is what a browser sends for the page's own
    /// forms under `Referrer-Policy: no-referrer`: it passes only with `Sec-Fetch-Site:
    /// same-origin` (a sandboxed frame of another site says `cross-site`).
    private func checkOrigin(_ request: Request) throws {
        let forbidden = WebRefusal(.forbidden, "Refused", "This form was sent from another site.")
        let site = request.headers[Self.fetchSite]
        if let site, site != "same-origin", site != "none" { throw forbidden }
        guard let origin = request.headers[Self.origin] else { return }
        if origin == "null" {
            guard site == "same-origin" else { throw forbidden }
            return
        }
        guard let host = request.head.authority, origin == "http://" + host || origin == "https://" + host else { throw forbidden }
    }

    private static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!
    private static let origin = HTTPField.Name("Origin")!
    private static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    private func checkCSRF(_ request: Request, form: [String: String], session: Session) throws {
        let sent = request.headers[Self.csrfHeader] ?? form["csrf"]
        guard let token = WebSession.token(of: request), WebSession.checkCSRF(sent, for: token) else {
            throw WebRefusal(.forbidden, "Refused", "This form is out of date (its session changed): load the page again.", back: "/")
        }
    }

    private func query(of request: Request) throws -> [String: String] {
        let items: [QueryString.Item]
        do {
            items = try QueryString.decode(Substring(request.uri.query ?? ""))
        } catch {
            throw WebRefusal(.badRequest, "Not a page", "This address cannot be read: \(error)", back: "/")
        }
        var values: [String: String] = [:]
        for item in items where values[item.name] == nil { values[item.name] = item.value }
        return values
    }

    private func readForm(_ request: Request, bodyRead: inout Bool) async throws -> [String: String] {
        let maximum = Self.maximumFormBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maximum {
            throw WebRefusal(.contentTooLarge, "Too large", "A form of this page is at most \(maximum) bytes.", close: true)
        }
        let timeout = min(limits.bodyTimeout, .seconds(10)), stream = request.body
        let late = WebRefusal(.requestTimeout, "Too slow", "The form did not arrive in time: send it again.", close: true)
        let tooLarge = WebRefusal(.contentTooLarge, "Too large", "A form of this page is at most \(maximum) bytes.", close: true)
        let body = try await RequestBodyReader.collect(stream, maximum: maximum, within: timeout, tooLarge: tooLarge, late: late)
        bodyRead = true
        do {
            var values: [String: String] = [:]
            for item in try QueryString.decode(Substring(String(buffer: body))) where values[item.name] == nil { values[item.name] = item.value }
            return values
        } catch {
            throw WebRefusal(.badRequest, "Not a form", "The form cannot be read: \(error)")
        }
    }

    private static func keyword(_ text: String?) throws -> String {
        let keyword = (text ?? "").trimmingWhitespace()
        guard keyword.count <= 200 else { throw WebRefusal(.badRequest, "Too long", "A search is at most 200 characters.", back: "/") }
        return keyword
    }

    // MARK: - Answers

    private func render(_ template: String, _ view: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        guard let html = templates.render(view, withTemplate: template) else {
            logger.error("no web template named \(template)")
            return Response(status: .internalServerError, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: "the page failed to render")))
        }
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    private func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The headers every page answer carries: scripts, styles, connections from this origin
    /// only (no inline script, whatever a dish's name holds), photos over https, no framing,
    /// no referrer (a sign-in link's secret never leaves in one).
    static func secureHeaders(_ headers: inout HTTPFields) {
        headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
    }

    /// `/` with the search's query.
    static func searchPath(keyword: String, category: String) -> String {
        var items: [String] = []
        if !keyword.isEmpty { items.append("q=" + percentEncoded(keyword)) }
        if !category.isEmpty { items.append("category=" + percentEncoded(category)) }
        return items.isEmpty ? "/" : "/?" + items.joined(separator: "&")
    }

    /// `text` with every byte but the unreserved ones (RFC 3986) written `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(digits[Int(byte >> 4)])
                output.unicodeScalars.append(digits[Int(byte & 15)])
            }
        }
        return output
    }
}
