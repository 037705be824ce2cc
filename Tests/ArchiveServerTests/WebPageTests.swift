import ArchiveServerSQLite
import ArchiveServerStorage
import ArchiveServer
import ArchiveServerPostgres
import ArchiveStorage
import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import Logging
import SQLite
import TestSupport
import Testing

/// The web page (`archive-server`'s `/`, docs/WEB.md) on the real binary, tried as a
/// browser and as an attacker would: sign-in links, sessions, hearts merged by the one
/// rule, hostile texts, CSRF, other users, forged addresses, the event stream.
@Suite(.timeLimit(.minutes(10)))
struct WebPageTests {
    /// Runs `body` with the users of `server`'s own database (a second connection to it, as
    /// `archive-server devices …` opens).
    private func withDirectory(_ server: ServiceProcess, _ body: (any UserDirectory) async throws -> Void) async throws {
        switch server.backend {
        case .sqlite:
            let database = try ServerDatabase(path: server.database)
            defer { database.close() }
            try await body(UserStore(database: database))
        case .postgres:
            var logger = Logger(label: "tests")
            logger.logLevel = .warning
            try await PostgresSyncStorage.with(try PostgresLocation(url: server.database), logger: logger) { try await body($0) }
        }
    }

    @Test("a sign-in link signs one browser in, once; the session is a device that devices list shows and devices revoke ends", arguments: ServiceBackend.allCases)
    func signInByLinkOnce(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        _ = try server.addUser("alice")
        let link = try WebClient.link(server, user: "alice", label: "phone")
        #expect(link.hasPrefix(server.url + "/signin?link=fa_"))
        // Opening the link shows a button; it does not sign in by itself (a link preview
        // must not use it up).
        let page = try server.call("GET", "/signin?link=\(WebClient.secret(of: link))")
        #expect(page.status == 200)
        #expect(page.header("Referrer-Policy") == "no-referrer")
        // It says whom it signs in as, before it is used (before: only "a new device of your archive").
        #expect(page.text.contains("It signs in as <strong>alice</strong>, the new device labelled <strong>phone</strong>"), "\(page.text)")
        // Looking does not use it: a second look says the same.
        #expect(try server.call("GET", "/signin?link=\(WebClient.secret(of: link))").text.contains("<strong>phone</strong>"))
        let first = try WebClient.signIn(server, secret: WebClient.secret(of: link))
        #expect(first.status == 303)
        let cookie = try #require(first.header("Set-Cookie"))
        #expect(cookie.hasPrefix("fa_session=fa_"))
        for attribute in ["HttpOnly", "SameSite=Strict", "Max-Age=2592000", "Path=/"] { #expect(cookie.contains(attribute)) }
        #expect(!cookie.contains("Secure"), "plain HTTP on loopback: a Secure cookie would never be sent back")
        // The same link again: refused, and no second device.
        let again = try WebClient.signIn(server, secret: WebClient.secret(of: link))
        #expect(again.status == 403)
        #expect(again.header("Set-Cookie") == nil)
        // Its page now says it does not sign in, and offers no button.
        let usedPage = try server.call("GET", "/signin?link=\(WebClient.secret(of: link))")
        #expect(usedPage.status == 403 && usedPage.text.contains("This link does not sign in") && !usedPage.text.contains("sign-in\""), "\(usedPage.text)")
        let session = String(cookie.split(separator: ";")[0])
        let signedIn = try server.call("GET", "/", headers: ["Cookie: \(session)"])
        #expect(signedIn.text.contains("phone · alice"))
        let devices = try server.admin(["devices", "list", "alice"])
        #expect(devices.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("phone\t") }.count == 1)
        // A public URL that is not a web server's base is refused before any link is made.
        for url in ["javascript:alert(1)", "http://", "http://:", "https://host/path?x", "http://host\nX: y"] {
            let refused = try server.admin(["devices", "link", "alice", "tablet", "--public-url", url])
            #expect(refused.status == 64 && refused.stdout.isEmpty, "\(url.debugDescription): \(refused.stderr)")
        }
        // A label taken since: a new link for it is refused at once.
        let taken = try server.admin(["devices", "link", "alice", "phone"])
        #expect(taken.status != 0)
        #expect(taken.stderr.contains("has a device labelled phone already"))
        // devices revoke signs the browser out.
        #expect(try server.admin(["devices", "revoke", "alice", "phone"]).status == 0)
        let revoked = try server.call("GET", "/", headers: ["Cookie: \(session)"])
        #expect(revoked.text.contains("Not signed in"))
        #expect(revoked.header("Set-Cookie")?.contains("Max-Age=0") == true)
        // Used, it stays used once its label is free again (a reusable link passed above only
        // through the label's clash): refused, no device made.
        let reused = try WebClient.signIn(server, secret: WebClient.secret(of: link))
        #expect(reused.status == 403 && reused.header("Set-Cookie") == nil, "\(reused.status) \(reused.text)")
        #expect(!(try server.admin(["devices", "list", "alice"]).stdout.contains("phone")))
    }

    /// A link made for the wrong label, or sent to the wrong person, can be taken back before
    /// it is used: `devices list` shows it, and `devices revoke` cancels it (before: "alice has
    /// no device labelled phone", and the link still signed a browser in for its 10 minutes).
    @Test("a sign-in link not used yet is listed, and devices revoke cancels it", arguments: ServiceBackend.allCases)
    func anUnusedLinkIsListedAndCancelled(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        _ = try server.addUser("alice")
        let made = try server.admin(["devices", "link", "alice", "phone", "--public-url", server.url])
        try #require(made.status == 0, "\(made.stderr)")
        let link = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!made.stderr.contains("the link assumes"), "\(made.stderr)")
        // Without --public-url the link names serve's default address, and says so (before:
        // port 8080 silently, whatever the server listened on).
        let assumed = try server.admin(["devices", "link", "alice", "tablet"])
        #expect(assumed.stdout.hasPrefix("http://127.0.0.1:8080/signin?link=fa_"), "\(assumed.stdout)")
        #expect(assumed.stderr.contains("the link assumes the service at http://127.0.0.1:8080") && assumed.stderr.contains("--public-url"), "\(assumed.stderr)")
        let listed = try server.admin(["devices", "list", "alice"]).stdout
        #expect(listed.contains("phone\tsign-in link not used yet\t") && listed.contains("devices revoke cancels it"), "\(listed)")
        let json = try server.admin(["devices", "list", "alice", "--json"]).stdout
        #expect(json.contains("\"pendingLinkUntil\""), "\(json)")
        let revoked = try server.admin(["devices", "revoke", "alice", "phone"])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(!(try server.admin(["devices", "list", "alice"]).stdout.contains("phone")))
        let refused = try WebClient.signIn(server, secret: WebClient.secret(of: link))
        #expect(refused.status == 403 && refused.header("Set-Cookie") == nil, "the cancelled link signed in: \(refused.status)")
        // Nothing left under that label: a second revoke says so.
        let again = try server.admin(["devices", "revoke", "alice", "phone"])
        #expect(again.status != 0 && again.stderr.contains("no device labelled phone"), "\(again.stderr)")
    }

    @Test("a link past its 10 minutes, a guessed one or a malformed one signs nothing in", arguments: ServiceBackend.allCases)
    func expiredOrGuessedLinksAreRefused(backend: ServiceBackend) async throws {
        let server = try ServiceProcess(backend)
        _ = try server.addUser("alice")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var expired: AccessToken?
        try await withDirectory(server) { users in
            expired = try await users.createSignInLink(for: "alice", label: "old", now: now - 700_000, expiresAt: now - 100_000)
        }
        let secret = try #require(expired).text
        #expect(try WebClient.signIn(server, secret: secret).status == 403)
        #expect(try WebClient.signIn(server, secret: AccessToken.generate().text).status == 403)
        #expect(try WebClient.signIn(server, secret: "fa_short").status == 403)
        #expect(try WebClient.signIn(server, secret: "%3Cscript%3E").status == 403)
        #expect(!(try server.admin(["devices", "list", "alice"]).stdout.contains("old")))

        // The lifetime a real `devices link` gives its link: 10 minutes, as it says (seen red
        // with a week).
        let made = try server.admin(["devices", "link", "alice", "phone", "--public-url", server.url])
        #expect(made.status == 0 && made.stderr.contains("for 10 minutes"), "\(made.stderr)")
        let query = "SELECT expires_at - created_at FROM sign_in_links WHERE label = 'phone'"
        let lifetime: String
        switch backend {
        case .sqlite: lifetime = try Database(path: server.database).fetchOne(query) { String(try $0.int64(at: 0)) } ?? ""
        case .postgres: lifetime = try TestPostgres.server().query(query, in: server.database).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(lifetime == "600000", "the link lives \(lifetime) ms")
    }

    @Test("sign-in attempts that fail are limited by address: past ten, even a good link waits")
    func signInAttemptsAreLimited() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        for _ in 0..<10 {
            #expect(try WebClient.signIn(server, secret: AccessToken.generate().text).status == 403)
        }
        let good = WebClient.secret(of: try WebClient.link(server, user: "alice", label: "phone"))
        let limited = try WebClient.signIn(server, secret: good)
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") != nil)
    }

    @Test("looking a link up counts as a try: ten pages of links that do not work, and even a good link's page waits")
    func signInPageLookupsAreLimited() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        for _ in 0..<10 {
            #expect(try server.call("GET", "/signin?link=" + AccessToken.generate().text).status == 403)
        }
        let good = WebClient.secret(of: try WebClient.link(server, user: "alice", label: "phone"))
        let page = try server.call("GET", "/signin?link=" + good)
        #expect(page.status == 429 && page.header("Retry-After") != nil && !page.text.contains("alice"), "\(page.status)")
        #expect(try WebClient.signIn(server, secret: good).status == 429)
    }

    @Test("a heart in the page is a change of that device: a CLI device receives it by archive sync, and the reverse", arguments: ServiceBackend.allCases)
    func heartsSyncBothWays(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        #expect(try browser.heart(17, keep: true))
        #expect(try browser.heart(17, keep: true), "hearting again changes nothing")
        let laptop = server.directory.path("laptop.sqlite3")
        let token = try tokens.database(laptop)
        let sync = ["sync", "--server", server.url]
        #expect(try ServiceProcess.archive(sync, database: laptop, in: server.directory, environment: ["ARCHIVE_SYNC_TOKEN": token]).status == 0)
        let listed = try ServiceProcess.archive(["favorites"], database: laptop, in: server.directory)
        #expect(listed.stdout.contains("チーズハンバーグ"))
        // The CLI removes it and adds 33; the page shows both changes.
        #expect(try ServiceProcess.archive(["remove", "17"], database: laptop, in: server.directory).status == 0)
        #expect(try ServiceProcess.archive(["add", "33"], database: laptop, in: server.directory).status == 0)
        #expect(try ServiceProcess.archive(sync, database: laptop, in: server.directory, environment: ["ARCHIVE_SYNC_TOKEN": token]).status == 0)
        let search = try browser.get("/?q=%E3%83%81%E3%83%BC%E3%82%BA&category=%E6%B4%8B%E9%A3%9F")
        let cards = WebClient.cards(in: search.text)
        #expect(cards.map(\.id) == [17, 21, 33])
        #expect(cards.filter(\.stored).map(\.id) == [33])
        // The page hearts 17 again: its stamp is later than the CLI's removal, so it wins.
        #expect(try browser.heart(17, keep: true))
        #expect(try browser.heart(33, keep: false) == false)
        #expect(try ServiceProcess.archive(sync, database: laptop, in: server.directory, environment: ["ARCHIVE_SYNC_TOKEN": token]).status == 0)
        let after = try ServiceProcess.archive(["favorites"], database: laptop, in: server.directory)
        #expect(after.stdout.contains("チーズハンバーグ"))
        #expect(!after.stdout.contains("チーズオムレツ"))
        // Without the script: the heart is a form whose answer sends the browser back.
        let form = try browser.post("/web/heart", "csrf=\(browser.csrf)&id=21&keep=1&back=%2F%3Fq%3Dx")
        #expect(form.status == 303)
        #expect(form.header("Location") == "/?q=x")
        let elsewhere = try browser.post("/web/heart", "csrf=\(browser.csrf)&id=21&keep=0&back=%2F%2Fevil.example%2F")
        #expect(elsewhere.header("Location") == "/", "a back address of another host is never followed")
        for back in ["%2F%5Cevil.example", "%2F%0D%0ASet-Cookie%3A%20x%3D1", "https%3A%2F%2Fevil.example%2F"] {
            let answer = try browser.post("/web/heart", "csrf=\(browser.csrf)&id=21&keep=0&back=\(back)")
            #expect(answer.header("Location") == "/" && answer.header("Set-Cookie") == nil, "back=\(back)")
        }
    }

    /// Every field a device controls, in every place the page shows it, read whole (not
    /// through a search that would cut the dish name into highlighted parts); with a search,
    /// each part. Seen red with `{{{category}}}`.
    @Test("every text a device wrote as HTML is shown as text, everywhere the page shows it; no policy lets an inline script run")
    func hostileTextStaysText() throws {
        let server = try ServiceProcess()
        let tokens = try server.addUserWithDevices("alice")
        let device = Changes.device(7)
        let change = Changes.hostile(
            500, by: device, photoUrl: "javascript:alert(3)", category: "<b>洋食</b>", dishName: "<img src=x onerror=alert(1)>",
            shopName: "\"><script>alert(2)</script>", introduction: "'<i>")
        #expect(try server.push([change], device: device, token: try tokens(device)).status == 200)
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        let dish = "&lt;img src=x onerror=alert(1)&gt;", shop = "&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;", category = "&lt;b&gt;洋食&lt;/b&gt;"
        for (target, dishShown) in [("/favorites", dish), ("/favorites?q=%3Cimg", "<mark>&lt;img</mark> src=x onerror=alert(1)&gt;")] {
            let page = try browser.get(target)
            #expect(page.status == 200)
            let text = page.text
            #expect(text.contains("<h2 class=\"dish\">\(dishShown)</h2>"), "\(target): the dish's heading")
            #expect(text.contains("aria-label=\"Favorite: \(dish)\""), "\(target): the heart's label")
            #expect(text.contains("<p class=\"shop\">\(shop)</p>"), "\(target): the shop")
            #expect(text.contains("<p class=\"category\">\(category)</p>"), "\(target): the category")
            for raw in ["<img src=x", "<script>alert", "<b>洋食", "<i>", "javascript:"] {
                #expect(!text.contains(raw), "\(target) shows \(raw) as HTML")
            }
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.contains("script-src 'self'"))
            #expect(!policy.contains("unsafe-inline"))
            #expect(page.header("X-Frame-Options") == "DENY")
        }
    }

    @Test("a change needs its session's CSRF token and this origin")
    func changesNeedCSRFAndOrigin() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        _ = try server.addUser("bob")
        let alice = try WebClient.signedIn(server, user: "alice", label: "phone")
        let bob = try WebClient.signedIn(server, user: "bob", label: "phone")
        #expect(try alice.post("/web/heart", "id=17&keep=1").status == 403)
        #expect(try alice.post("/web/heart", "csrf=\(bob.csrf)&id=17&keep=1").status == 403)
        #expect(try alice.post("/web/heart", "csrf=\(alice.csrf)&id=17&keep=1", headers: ["Origin: http://evil.example"]).status == 403)
        #expect(try alice.post("/web/heart", "csrf=\(alice.csrf)&id=17&keep=1", headers: ["Sec-Fetch-Site: cross-site"]).status == 403)
        #expect(try alice.post("/web/heart", "csrf=\(alice.csrf)&id=17&keep=1", headers: ["Origin: null"]).status == 403, "a sandboxed frame's null origin")
        #expect(try alice.post("/web/signout", "csrf=\(bob.csrf)").status == 403)
        #expect(try server.call("POST", "/web/heart", body: Array("csrf=\(alice.csrf)&id=17&keep=1".utf8)).status == 401)
        // A device's own token in the cookie signs no page in.
        let deviceToken = try server.addDevice("laptop", of: "alice")
        #expect(try server.call("GET", "/", headers: ["Cookie: fa_session=\(deviceToken)"]).text.contains("Not signed in"))
        // Read through a session no forged request could have ended (alice's own could be).
        let reader = try WebClient.signedIn(server, user: "alice", label: "reader")
        let held = try reader.get("/favorites").text
        #expect(held.contains("reader · alice") && WebClient.cards(in: held).isEmpty, "nothing was stored")
        // The same request from the page itself is taken.
        #expect(try alice.post("/web/heart", "csrf=\(alice.csrf)&id=17&keep=1", headers: ["Origin: http://127.0.0.1", "Sec-Fetch-Site: same-origin"]).status == 303)
        #expect(try alice.post("/web/heart", "csrf=\(alice.csrf)&id=17&keep=0", headers: ["Origin: null", "Sec-Fetch-Site: same-origin"]).status == 303, "the page's own form under no-referrer")
    }

    @Test("one user's session never reads or writes another's favorites", arguments: ServiceBackend.allCases)
    func sessionsAreIsolated(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        _ = try server.addUser("alice")
        let bobTokens = try server.addUserWithDevices("bob")
        let device = Changes.device(9)
        #expect(try server.push([Changes.stored(17, at: 1_700_000_000_000, by: device, text: " bob's")], device: device, token: try bobTokens(device)).status == 200)
        let alice = try WebClient.signedIn(server, user: "alice", label: "phone")
        #expect(WebClient.cards(in: try alice.get("/favorites").text).isEmpty)
        #expect(WebClient.cards(in: try alice.get("/?q=%E3%83%81%E3%83%BC%E3%82%BA").text).allSatisfy { !$0.stored })
        #expect(try alice.heart(33, keep: true))
        let bob = try WebClient.signedIn(server, user: "bob", label: "phone")
        #expect(WebClient.cards(in: try bob.get("/favorites").text).map(\.id) == [17])
        #expect(!(try bob.get("/favorites").text.contains("チーズオムレツ")))
    }

    @Test("favorites come a page at a time, newest first; a forged page address is refused or reads only the user's own", arguments: ServiceBackend.allCases)
    func favoritesArePaged(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        let device = Changes.device(3)
        let changes = (1...120).map { Changes.stored($0, at: 1_700_000_000_000 + Int64($0), by: device, text: $0 % 2 == 0 ? " even" : "") }
        #expect(try server.push(changes, device: device, token: try tokens(device)).status == 200)
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        var seen: [Int] = []
        var target: String? = "/favorites"
        while let next = target {
            let page = try browser.get(next)
            #expect(page.status == 200)
            seen += WebClient.cards(in: page.text).map(\.id)
            target = page.text.components(separatedBy: "<a href=\"").dropFirst().first { $0.hasPrefix("/favorites?after=") }
                .map { String($0.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&") }
        }
        #expect(seen == Array((1...120).reversed()), "every favorite once, newest first")
        let even = WebClient.cards(in: try browser.get("/favorites?q=EVEN").text).map(\.id)
        #expect(even == Array(stride(from: 120, through: 22, by: -2)), "the first page of the search, ASCII case ignored")
        #expect(try browser.get("/favorites?after=abc").status == 400)
        #expect(try browser.get("/favorites?after=-1.5").status == 400)
        #expect(WebClient.cards(in: try browser.get("/favorites?after=1.1").text).isEmpty)
        #expect(try browser.get("/?q=" + String(repeating: "a", count: 201)).status == 400)
        #expect(try browser.get("/?q=%FF").status == 400)
        let large = try browser.post("/web/heart", "csrf=\(browser.csrf)&id=17&keep=1&pad=" + String(repeating: "x", count: 5_000))
        #expect(large.status == 413)
    }

    @Test("a database that cannot take a heart answers a page saying so, with Retry-After, and nothing of the server's inside")
    func storageFailureIsAPage() throws {
        let server = try ServiceProcess(arguments: ["--request-timeout", "1"])
        _ = try server.addUser("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        // Another process holds the database's write lock past the request's deadline.
        let lock = try Database(path: server.database)
        try lock.execute("BEGIN EXCLUSIVE")
        let answer = try browser.post("/web/heart", "csrf=\(browser.csrf)&id=17&keep=1")
        try lock.execute("ROLLBACK")
        #expect(answer.status == 503)
        #expect(answer.header("Retry-After") != nil)
        #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(answer.text.contains("nothing was changed"))
        #expect(!answer.text.contains(server.database) && !answer.text.contains("SQLITE") && !answer.text.contains("locked"))
        // Once the lock is gone, the same heart lands.
        #expect(try browser.heart(17, keep: true))
    }

    @Test("a heart kept offline merges at the time it was made, both ways and in either order of arrival; its times are checked", arguments: ServiceBackend.allCases)
    func aLateHeartMergesByTheTimeItWasMade(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        let device = Changes.device(7)
        let token = try tokens(device)
        let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded())
        let minute: Int64 = 60_000
        func push(_ change: FavoriteChange) throws {
            #expect(try server.push([change], device: device, token: token).status == 200)
        }
        /// The stored state the heart answered (made a minute before it was sent; the
        /// browser's clock an hour ahead of the server's, which the pair cancels).
        func lateHeart(_ id: Int, keep: Bool) throws -> Bool {
            let ahead: Int64 = 60 * minute
            let answer = try browser.heart(id, keep: keep, made: now + ahead - minute, sent: now + ahead)
            let object = try answer.json() as? [String: Any]
            return try #require(object?["stored"] as? Bool, "\(answer.status): \(answer.text)")
        }
        // The device's change arrives first.
        try push(Changes.stored(41, at: now - 10_000, by: device))  // made after the heart
        try push(Changes.stored(44, at: now - 2 * minute, by: device))  // made before it
        #expect(try lateHeart(41, keep: false), "a change made after the offline heart wins")
        #expect(try !lateHeart(44, keep: false), "a change made before the offline heart loses")
        // The heart arrives first; the device's change after it.
        #expect(try lateHeart(45, keep: true))
        #expect(try lateHeart(46, keep: true))
        try push(Changes.removed(45, at: now - 2 * minute, by: device))  // made before the heart: loses
        try push(Changes.removed(46, at: now - 10_000, by: device))  // made after it: wins
        // The same late heart sent again (its answer lost) changes nothing.
        #expect(try !lateHeart(44, keep: false))
        let held = try #require(server.pull(device: Changes.device(8), token: try tokens(Changes.device(8))).1)
        var stored: [Int: Bool] = [:]
        for change in held.changes { stored[change.id] = change.favorite != nil }
        #expect(stored == [41: true, 44: false, 45: true, 46: false], "\(stored)")
        #expect(Set(WebClient.cards(in: try browser.get("/favorites").text).map(\.id)) == [45, 41])
        // A heart sent as it was made (the page online) still wins over what the page showed.
        try push(Changes.stored(47, at: now + 5_000, by: device))
        let prompt = try browser.heart(47, keep: false, made: now, sent: now)
        #expect((try prompt.json() as? [String: Any])?["stored"] as? Bool == false, "\(prompt.text)")
        // Times that cannot be: refused, nothing stored.
        let day: Int64 = 24 * 60 * minute
        let tooOld = try browser.heart(48, keep: true, made: now - 31 * day, sent: now)
        #expect(tooOld.status == 422 && tooOld.text.contains("more than 30"), "\(tooOld.status) \(tooOld.text.prefix(300))")
        #expect(try browser.heart(48, keep: true, made: now - 29 * day, sent: now).status == 200, "29 days old is taken")
        for fields in ["made=\(now)", "sent=\(now)", "made=\(now + 1)&sent=\(now)", "made=x&sent=\(now)", "made=-5&sent=0", "made=1&sent=99999999999999999999"] {
            let answer = try browser.post("/web/heart", "csrf=\(browser.csrf)&id=49&keep=1&\(fields)", headers: ["Accept: application/json"])
            #expect(answer.status == 400, "\(fields): \(answer.status)")
        }
        #expect(!WebClient.cards(in: try browser.get("/favorites").text).map(\.id).contains(49))
    }

    @Test("signing out ends the session: its cookie is cleared and its token stops working")
    func signOut() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        let out = try browser.post("/web/signout", "csrf=\(browser.csrf)")
        #expect(out.status == 303)
        #expect(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
        #expect(try browser.get("/").text.contains("Not signed in"))
        #expect(try browser.post("/web/heart", "csrf=\(browser.csrf)&id=17&keep=1").status == 401)
        #expect(!(try server.admin(["devices", "list", "alice"]).stdout.contains("phone")))
    }

    @Test("an open page's event stream hears another device's push; streams a user may hold are bounded", arguments: ServiceBackend.allCases)
    func eventStream(backend: ServiceBackend) throws {
        // An hour's grace for answers in progress: the open streams must end at once anyway.
        let server = try ServiceProcess(backend, arguments: ["--shutdown-timeout", "3600"])
        let tokens = try server.addUserWithDevices("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        let stream = try RawHTTPConnection(url: server.url)
        #expect(stream.send("GET /web/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(browser.cookie)\r\n\r\n"))
        let head = try stream.read(until: "retry: 2000")
        #expect(head.contains("text/event-stream"))
        #expect(head.contains("X-Accel-Buffering: no"), "a proxy in front passes events on at once")
        // A device (archive-tui) listens with its token.
        let listener = try RawHTTPConnection(url: server.url)
        #expect(listener.send("GET \(SyncAPI.eventsPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(try tokens(Changes.device(5)))\r\n\r\n"))
        _ = try listener.read(until: "retry: 2000")
        let device = Changes.device(4)
        #expect(try server.push([Changes.stored(5, at: 1_700_000_000_000, by: device)], device: device, token: try tokens(device)).status == 200)
        _ = try stream.read(until: "event: feed")
        _ = try listener.read(until: "event: feed")
        #expect(try server.call("GET", SyncAPI.eventsPath).status == 401)
        #expect(try server.call("GET", SyncAPI.eventsPath, token: "fa_" + String(repeating: "A", count: 43)).status == 401)
        // A heart from the page tells the user's other pages too.
        #expect(try browser.heart(17, keep: true))
        _ = try stream.read(until: "event: feed")
        // Eight streams a user (pages and devices alike): the ninth is refused, and one
        // closed makes room.
        var open = [stream, listener]
        for _ in 0..<6 {
            let another = try RawHTTPConnection(url: server.url)
            #expect(another.send("GET /web/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(browser.cookie)\r\n\r\n"))
            _ = try another.read(until: "retry: 2000")
            open.append(another)
        }
        #expect(try browser.get("/web/events").status == 429)
        // A stream whose page went away is noticed at its next keep-alive (every 15 s).
        _ = open.removeLast()
        let room = try Deadline.poll(every: .milliseconds(200), within: .seconds(60)) {
            let connection = try RawHTTPConnection(url: server.url)
            guard connection.send("GET /web/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(browser.cookie)\r\n\r\n") else { return false }
            return (try? connection.read(until: "retry: 2000", timeout: .seconds(5))) != nil
        }
        #expect(room, "a closed stream made room within a minute")
        // Without a session: no stream.
        #expect(try server.call("GET", "/web/events").status == 401)
        // SIGTERM ends every open stream and the server exits, without waiting its hour's grace
        // (stop() kills it after a minute, and then says nil).
        #expect(server.stop()?.status == 0, "the server stopped with \(open.count) streams open")
        #expect(open.allSatisfy { $0.waitForClose(timeout: .seconds(10)) })
    }
}
