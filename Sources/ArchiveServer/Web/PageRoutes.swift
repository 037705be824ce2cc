import ArchiveServerStorage
import ArchiveAPI
import ArchiveHTTPServer
import ArchiveSearch
import ArchiveSyncWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HTTPTypes
import Logging
import Mustache
import NIOCore
import ArchiveSyncModel

/// The Archive screen as a web page (docs/WEB.md), the page's route group: `/`,
/// `/favorites`, `/signin` and `/web/…`. Signed in by a one-time link as a device of its
/// own (``SessionAuthenticator`` puts the session in the request context), it searches the
/// catalog, hearts dishes (changes of that device, stamped and merged by the one rule) and
/// lists the favorites; an event stream tells it when another device's push lands.
///
/// Pages are rendered on the server (``WebTemplates``); the one script (``WebAssets``) only
/// makes them quicker. Every answer carries the page's headers (``PageHeadersMiddleware``)
/// and every failure is a page (``PageErrorMiddleware``); every change (a heart, signing
/// out, signing in) is a `POST` that must come from this origin and, once signed in, carry
/// the session's CSRF token.
struct PageRoutes: Sendable {
    let backend: any SyncBackend
    let events: FeedEvents
    let limiter: SignInLimiter
    let catalog: BundledArchiveRepository
    let pages: PageRenderer
    let limits: SyncServiceLimits
    /// The session's cookies (`Secure` when browsers reach the page over HTTPS).
    let cookies: WebSession.Cookies
    let logger: Logger
    /// Unix milliseconds now.
    let wallClock: @Sendable () -> Int64

    /// The most favorites a page of the Favorites screen shows.
    static let pageSize = 50
    /// The most favorites one page of a search looks through (about 20 ms of SQLite's time;
    /// docs/PERFORMANCE.md): past it the page says so and the next one goes on.
    static let searchWindow = 20_000
    /// The largest form body a page sends.
    static let maximumFormBytes = 4_096

    /// The group's routes, behind the page's headers, its error pages and its authenticator.
    func collection() -> RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.add(middleware: PageHeadersMiddleware())
        routes.add(middleware: PageCompressionMiddleware())
        routes.add(middleware: PageErrorMiddleware(pages: pages, cookies: cookies, logger: logger))
        routes.add(middleware: SessionAuthenticator(backend: backend))
        // Each asset at its fingerprinted address, kept for ever, and at its plain one, never
        // kept; the manifest and the service worker, never kept (a new worker must be seen).
        let served = [
            (WebAssets.stylesheetPath, StaticAsset(WebAssets.stylesheet, type: "text/css; charset=utf-8", cache: WebAssets.immutable)),
            ("/web/app.css", StaticAsset(WebAssets.stylesheet, type: "text/css; charset=utf-8", cache: "no-cache")),
            (WebAssets.scriptPath, StaticAsset(WebAssets.script, type: "text/javascript; charset=utf-8", cache: WebAssets.immutable)),
            ("/web/app.js", StaticAsset(WebAssets.script, type: "text/javascript; charset=utf-8", cache: "no-cache")),
            (WebAssets.manifestPath, StaticAsset(WebAssets.manifest, type: "application/manifest+json", cache: "no-cache")),
            (WebAssets.serviceWorkerPath, StaticAsset(WebAssets.serviceWorker, type: "text/javascript; charset=utf-8", cache: "no-cache")),
        ]
        for (address, asset) in served {
            let answer: @Sendable (Request, ServiceRequestContext) -> Response = { request, _ in asset.response(to: request) }
            let path = RouterPath(String(address.dropFirst()))
            routes.get(path, use: answer).head(path, use: answer)
        }
        for size in AppIcon.sizes {
            let icon: @Sendable (Request, ServiceRequestContext) throws -> Response = { _, _ in
                guard let png = AppIcon.files[size] else { throw WebRefusal(.internalServerError, "No icon", "The icon could not be drawn.") }
                return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "public, max-age=86400"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: png)))
            }
            let path = RouterPath(String(AppIcon.path(size: size).dropFirst()))
            routes.get(path, use: icon).head(path, use: icon)
        }
        routes.get("signin") { request, context in
            try await signInPage(try Self.query(of: request)["link"] ?? "", context: context)
        }
        for path in ["", "favorites"] {
            let answer: @Sendable (Request, ServiceRequestContext) async throws -> Response = { request, context in
                try await screen(request, context: context)
            }
            routes.get(RouterPath(path), use: answer).head(RouterPath(path), use: answer)
        }
        // A change (signing in, a heart, signing out) must come from this origin, and is
        // refused before its form is read; the form's work with the database gets the whole
        // deadline once it has arrived.
        let changes = routes.group().add(middleware: SameOriginMiddleware())
        changes.group().add(middleware: formBody).add(middleware: StorageDeadlineMiddleware(limit: limits.requestTimeout))
            .post("signin") { request, context in
                try await signIn(try await Self.form(of: request)["link"] ?? "", context: context)
            }
        let signedIn = changes.group().add(middleware: PageSessionMiddleware()).add(middleware: formBody)
            .add(middleware: StorageDeadlineMiddleware(limit: limits.requestTimeout))
        signedIn.post("web/heart") { request, context in
            let session = try requireSession(request, context: context)
            let form = try await Self.form(of: request)
            try Self.checkCSRF(request, form: form)
            return try await heart(form, request: request, session: session, context: context)
        }
        signedIn.post("web/signout") { request, context in
            let session = try requireSession(request, context: context)
            try Self.checkCSRF(request, form: try await Self.form(of: request))
            return try await signOut(session, context: context)
        }
        routes.get("web/events") { request, context in
            try stream(for: try requireSession(request, context: context).user, request: request)
        }
        var methods: [(String, [HTTPRequest.Method])] = [
            ("signin", [.get, .post]), ("", [.get, .head]), ("favorites", [.get, .head]), ("web/heart", [.post]), ("web/signout", [.post]),
            ("web/events", [.get]),
        ]
        for address in served.map(\.0) + AppIcon.sizes.map(AppIcon.path(size:)) { methods.append((String(address.dropFirst()), [.get, .head])) }
        for (path, allowed) in methods {
            routes.refuse(RouterPath(path), allowing: allowed) { method, allowed in
                WebRefusal(.methodNotAllowed, "Not allowed", "\(method.rawValue) is not served at this address.", allow: allowed.map(\.rawValue).joined(separator: ", "))
            }
        }
        return routes
    }

    /// `/` (the search) or `/favorites`: the screen, or a page saying how to sign in.
    private func screen(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let session = session(request, context: context) else {
            var page = pages.render("message", [
                "title": "Not signed in",
                "text": "Open the sign-in link for this browser: on the server, archive-server devices link USER LABEL prints one (it works once, for 10 minutes).",
            ], status: .ok)
            // A session that ended elsewhere (revoked, its user removed): its cookie goes, and
            // so does what the browser kept of it (the screens its service worker kept).
            if request.cookies[WebSession.cookieName] != nil {
                page.headers[.setCookie] = cookies.clear
                page.headers[Self.clearSiteData] = Self.clearEverything
            }
            return page
        }
        let query = try Self.query(of: request)
        return request.uri.path == "/"
            ? try await archive(query, session: session, context: context) : try await favorites(query, session: session, context: context)
    }

    // MARK: - Sessions

    /// A signed-in browser: its device's user (and bound device), and the CSRF token of its session.
    struct Session: Sendable {
        let user: AuthenticatedUser
        let device: DeviceID
        let csrf: String
    }

    /// The session the authenticator found (``SessionAuthenticator``), or `nil`.
    private func session(_ request: Request, context: ServiceRequestContext) -> Session? {
        guard let user = context.identity, let device = user.boundDevice, let token = WebSession.token(of: request) else { return nil }
        return Session(user: user, device: device, csrf: WebSession.csrfToken(of: token))
    }

    private func requireSession(_ request: Request, context: ServiceRequestContext) throws -> Session {
        guard let session = session(request, context: context) else { throw PageSessionMiddleware.notSignedIn }
        return session
    }

    /// Ends `session`: its token stops working, its device is forgotten, and its open
    /// streams end now.
    private func signOut(_ session: Session, context: ServiceRequestContext) async throws -> Response {
        let user = session.user
        try await context.storageDeadline.run("signing out") { [backend] in try await backend.endSession(user) }
        events.end { $0.token == user.token }
        var response = Response(status: .seeOther, headers: [.location: "/"])
        response.headers[.setCookie] = cookies.clear
        // What the browser kept of this session (the screens the service worker keeps, the
        // worker itself, the HTTP cache) goes with it.
        response.headers[Self.clearSiteData] = Self.clearEverything
        return response
    }

    /// The sign-in page of `link`: whom it signs in as (a user and a device label), before
    /// it is used, so that a link someone else sent is not followed blindly. The lookup is
    /// counted as a try of the link, under the same limit as signing in (it would otherwise
    /// tell a guesser which secrets work).
    private func signInPage(_ link: String, context: ServiceRequestContext) async throws -> Response {
        guard !link.isEmpty else { return pages.render("signin", ["title": "Sign in", "link": link]) }
        let (secret, address, now) = try linkSecret(link, context: context)
        let backend = self.backend
        guard let target = try await context.storageDeadline.run("reading a sign-in link", { try await backend.signInTarget(of: secret) }) else {
            limiter.failed(address, now: now)
            throw Self.refusedLink
        }
        return pages.render("signin", ["title": "Sign in", "link": link, "target": ["user": target.user, "label": target.label]])
    }

    /// A sign-in link that does not work, whatever the reason (never made, used, past its end).
    static let refusedLink = WebRefusal(
        .forbidden, "This link does not sign in",
        "This sign-in link was used already, is past its 10 minutes, or is not one: on the server, archive-server devices link USER LABEL makes a new one.")

    /// The secret of `link`, once this address may try one (``SignInLimiter``) and the link
    /// has a secret's shape (a malformed one counts as a failed try); with the address and
    /// the time, for counting the try's outcome.
    private func linkSecret(_ link: String, context: ServiceRequestContext) throws -> (secret: AccessToken, address: String, now: Int64) {
        let address = context.remoteAddress?.ipAddress ?? "unknown"
        let now = wallClock()
        if let wait = limiter.wait(for: address, now: now) {
            throw WebRefusal(.tooManyRequests, "Too many sign-ins", "Too many sign-in links that did not work came from this address: wait \((wait + 999) / 1000) s, then open a new link.")
        }
        guard link.hasPrefix(AccessToken.prefix), link.utf8.count == AccessToken.prefix.utf8.count + 43 else {
            limiter.failed(address, now: now)
            throw Self.refusedLink
        }
        return (AccessToken(text: link), address, now)
    }

    private func signIn(_ link: String, context: ServiceRequestContext) async throws -> Response {
        let (secret, address, now) = try linkSecret(link, context: context)
        let refused = Self.refusedLink
        let session = AccessToken.generate()
        let device = DeviceID.random()
        let end = now + WebSession.lifetimeSeconds * 1000
        let backend = self.backend
        let outcome = try await context.storageDeadline.run("using a sign-in link") {
            try await backend.redeemSignInLink(secret, device: device, session: session, sessionEnd: end)
        }
        switch outcome {
        case .signedIn(let user, let label):
            logger.notice("signed in a browser", metadata: ["user": "\(user)", "device": "\(label)"])
            var response = Response(status: .seeOther, headers: [.location: "/"])
            response.headers[.setCookie] = cookies.set(session)
            return response
        case .labelTaken(let user, let label):
            throw WebRefusal(.conflict, "This link does not sign in", "\(user) has a device labelled \(label) already (added since the link was made): make a new link with another label.")
        case .refused:
            limiter.failed(address, now: now)
            throw refused
        }
    }

    // MARK: - Screens

    private func archive(_ query: [String: String], session: Session, context: ServiceRequestContext) async throws -> Response {
        let keyword = try Self.keyword(query["q"])
        let categories = try await catalog.categories()
        let category = query["category"].flatMap { categories.contains($0) ? $0 : nil } ?? ""
        let found = try await catalog.getArchiveResponse(keyword: keyword, category: category)
        let backend = self.backend, ids = found.map(\.id)
        let held = try await context.storageDeadline.run("reading favorites") {
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
        return pages.render("archive", [
            "title": keyword.isEmpty ? "Search" : keyword, "onSearch": true, "session": sessionView(session, lastSync: held.lastSync),
            "keyword": keyword, "category": category, "chips": chips, "results": results,
            "count": found.count == 1 ? "1 dish" : "\(found.count) dishes",
        ])
    }

    private func favorites(_ query: [String: String], session: Session, context: ServiceRequestContext) async throws -> Response {
        let keyword = try Self.keyword(query["q"])
        var after: FavoritesPosition?
        if let text = query["after"] {
            guard let position = FavoritesPosition(text) else {
                throw WebRefusal(.badRequest, "Not a page", "This page's address is not one the Favorites screen makes.", back: "/favorites")
            }
            after = position
        }
        let backend = self.backend, size = Self.pageSize, start = after, window = Self.searchWindow
        let page = try await context.storageDeadline.run("reading favorites") {
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
        return pages.render("favorites", view)
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
            let iso = ISO8601Milliseconds.string(lastSync)
            view["lastSync"] = ["iso": iso, "shown": String(iso.prefix(16)).replacing("T", with: " ") + " UTC"]
        }
        return view
    }

    // MARK: - Hearts

    private func heart(_ form: [String: String], request: Request, session: Session, context: ServiceRequestContext) async throws -> Response {
        guard let idText = form["id"], let id = Int(idText), id > 0, let keepText = form["keep"], keepText == "1" || keepText == "0" else {
            throw WebRefusal(.badRequest, "Not a heart", "A heart names a dish (id) and whether to keep it (keep=1 or 0).")
        }
        let keep = keepText == "1"
        let time = try HeartTime(form: form)
        let backend = self.backend, user = session.user
        let held = try await context.storageDeadline.run("reading a favorite") { try await backend.held([id], of: user) }
        let current = held.changes[id]
        var isStored = Self.isStored(current)
        // A heart of the script carries its time: it is a change made then, whatever the
        // dish's state now, and merges by that time (a change made later elsewhere wins, even
        // one that arrived first). A form posted without the script is made now, and changes
        // nothing when the dish already is as asked.
        if time != nil || keep != isStored {
            let now = wallClock()
            let made = time?.made(now: now) ?? now
            let state: FavoriteChange.State
            if keep {
                guard let dish = try? await catalog.getArchiveEntity(id: id) else {
                    throw WebRefusal(.notFound, "No such dish", "The catalog has no dish \(id).")
                }
                state = .stored(dish.favorite(storedAtMilliseconds: made))
            } else {
                state = .removed
            }
            // Stamped at the time it was made; after what the user holds for the dish when that
            // is stamped ahead of the server's clock (a device whose clock is ahead: the page
            // showed its change, and the tap answers it) or when the heart is made now.
            let stamp: HybridTimestamp
            if let held = current?.stamp.time, time == nil || held >= HybridTimestamp(milliseconds: now) {
                stamp = HybridTimestamp.next(after: held, wallClock: made)
            } else {
                stamp = HybridTimestamp(milliseconds: made)
            }
            let change = FavoriteChange(id: id, stamp: ChangeStamp(time: stamp, device: session.device), state: state)
            let seen = held.position
            let answer = try await context.storageDeadline.run("applying a heart of \(user.name)") {
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
                let after = try await context.storageDeadline.run("reading a favorite") { try await backend.held([id], of: user) }
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

    private func stream(for user: AuthenticatedUser, request: Request) throws -> Response {
        guard let moves = events.subscribe(StreamIdentity(user)) else {
            throw WebRefusal(.tooManyRequests, "Too many open pages", "This user has \(events.maximumStreamsPerUser) pages listening already: close one.")
        }
        return EventStream.response(moves, to: request)
    }

    // MARK: - Requests

    private static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    private static func checkCSRF(_ request: Request, form: [String: String]) throws {
        let sent = request.headers[Self.csrfHeader] ?? form["csrf"]
        guard let token = WebSession.token(of: request), WebSession.checkCSRF(sent, for: token) else {
            throw WebRefusal(.forbidden, "Refused", "This form is out of date (its session changed): load the page again.", back: "/")
        }
    }

    private static func query(of request: Request) throws -> [String: String] {
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

    /// A form's bounds (its whole body within 10 s), refused as pages.
    private var formBody: RequestBodyMiddleware {
        let maximum = Self.maximumFormBytes
        let tooLarge = WebRefusal(.contentTooLarge, "Too large", "A form of this page is at most \(maximum) bytes.", close: true)
        return RequestBodyMiddleware(
            maximum: maximum, timeout: min(limits.bodyTimeout, .seconds(10)), budget: nil,
            refusals: .init(
                tooLarge: { _ in tooLarge },
                late: { WebRefusal(.requestTimeout, "Too slow", "The form did not arrive in time: send it again.", close: true) },
                busy: { tooLarge }))
    }

    /// The fields of the form ``formBody`` read (the first of each name).
    private static func form(of request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: .max)
        do {
            var values: [String: String] = [:]
            for item in try QueryString.decode(Substring(String(buffer: body))) where values[item.name] == nil { values[item.name] = item.value }
            return values
        } catch {
            throw WebRefusal(.badRequest, "Not a form", "The form cannot be read: \(error)")
        }
    }

    /// The most Unicode scalars a search holds: counted in scalars, not in what a person
    /// sees as characters (one of those can hold any number of combining scalars, and a
    /// search's cost is in its bytes).
    static let maximumSearchScalars = 200

    private static func keyword(_ text: String?) throws -> String {
        let keyword = (text ?? "").trimmingWhitespace()
        guard keyword.unicodeScalars.count <= maximumSearchScalars else {
            throw WebRefusal(.badRequest, "Too long", "A search is at most \(maximumSearchScalars) characters (Unicode code points).", back: "/")
        }
        return keyword
    }

    // MARK: - Answers

    /// `Clear-Site-Data`: the browser drops what it kept of this origin.
    static let clearSiteData = HTTPField.Name("Clear-Site-Data")!
    /// Its value on a sign-out or a session that ended: the HTTP cache and every store of the
    /// origin (Cache Storage, where the service worker keeps the screens; the worker itself).
    static let clearEverything = #""cache", "storage""#

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
