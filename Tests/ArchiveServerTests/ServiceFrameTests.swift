import ArchiveSyncWire
import Foundation
import SQLite
import TestSupport
import Testing

/// The service's frame through the real binary (issue 72): identities end their open
/// streams, a removed user's ID is never given again, a stream whose client went away
/// frees its slot, SIGHUP in plain HTTP, the metrics' listener within the descriptor
/// budget, the `Secure` cookie behind a TLS-terminating proxy.
@Suite(.timeLimit(.minutes(5)))
struct ServiceFrameTests {
    /// An event stream opened with a device's token.
    private func deviceStream(_ server: ServiceProcess, token: String) throws -> RawHTTPConnection {
        let stream = try RawHTTPConnection(url: server.url)
        #expect(stream.send("GET \(SyncAPI.eventsPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"))
        _ = try stream.read(until: "retry: 2000")
        return stream
    }

    /// An event stream opened with a browser's session.
    private func pageStream(_ server: ServiceProcess, cookie: String) throws -> RawHTTPConnection {
        let stream = try RawHTTPConnection(url: server.url)
        #expect(stream.send("GET /web/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\n\r\n"))
        _ = try stream.read(until: "retry: 2000")
        return stream
    }

    @Test("revoking a device or signing out ends that identity's open streams at once; the others keep hearing", arguments: ServiceBackend.allCases)
    func streamsEndWithTheirIdentity(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        let tui = try server.addDevice("tui", of: "alice")
        let phone = try WebClient.signedIn(server, user: "alice", label: "phone")
        let laptop = try WebClient.signedIn(server, user: "alice", label: "laptop")
        let tuiStream = try deviceStream(server, token: tui)
        let phoneStream = try pageStream(server, cookie: phone.cookie)
        let laptopStream = try pageStream(server, cookie: laptop.cookie)

        // Another process revokes the device: its stream ends (long before the stream's
        // first keep-alive at 15 s, let alone its 10 minutes), having heard nothing more.
        #expect(try server.admin(["devices", "revoke", "alice", "tui"]).status == 0)
        let heard = try #require(tuiStream.readUntilClose(timeout: .seconds(10)), "the revoked device's stream still open")
        #expect(!heard.contains("event: feed") && !heard.contains("keep-alive"), "\(heard)")
        // The others still hear a push.
        let device = Changes.device(4)
        #expect(try server.push([Changes.stored(5, at: 1_700_000_000_000, by: device)], device: device, token: try tokens(device)).status == 200)
        _ = try phoneStream.read(until: "event: feed")
        _ = try laptopStream.read(until: "event: feed")

        // The browser's session revoked from the command line: the page's stream ends too.
        #expect(try server.admin(["devices", "revoke", "alice", "phone"]).status == 0)
        #expect(phoneStream.readUntilClose(timeout: .seconds(10)) != nil, "the revoked browser's stream still open")

        // Signing out in the page ends its own streams with the answer.
        #expect(try laptop.post("/web/signout", "csrf=\(laptop.csrf)").status == 303)
        #expect(laptopStream.readUntilClose(timeout: .seconds(10)) != nil, "the signed-out browser's stream still open")
        #expect(try server.call("GET", SyncAPI.eventsPath, token: tui).status == 401)
    }

    @Test("a removed user's stream ends, and a user added after never shares its ID or hears into it", arguments: ServiceBackend.allCases)
    func removedUsersStreamsHearNoOneElse(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let alice = try server.addUser("alice")
        let stream = try deviceStream(server, token: alice)
        let aliceID = try userID("alice", on: server)
        #expect(try server.admin(["users", "remove", "alice"]).status == 0)
        let mallory = try server.addUser("mallory")
        #expect(try userID("mallory", on: server) != aliceID, "a removed user's ID was given to the next user")
        let device = Changes.device(9)
        #expect(try server.push([Changes.stored(7, at: 1_700_000_000_000, by: device)], device: device, token: mallory).status == 200)
        let heard = try #require(stream.readUntilClose(timeout: .seconds(10)), "the removed user's stream still open")
        #expect(!heard.contains("event: feed"), "alice's stream heard mallory's push: \(heard)")
    }

    @Test("a restore's renew-feeds (every feed new) ends every open stream: its clients read their feeds again", arguments: ServiceBackend.allCases)
    func renewedFeedsEndTheStreams(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let token = try server.addUser("alice")
        let stream = try deviceStream(server, token: token)
        let renewed = try server.admin(["renew-feeds"])
        #expect(renewed.status == 0, "\(renewed.stderr)")
        #expect(stream.readUntilClose(timeout: .seconds(10)) != nil, "a stream of the feed before the restore still open")
        // A new stream listens to the new feed.
        _ = try deviceStream(server, token: token)
    }

    /// The row ID of user `name`, read from the server's database.
    private func userID(_ name: String, on server: ServiceProcess) throws -> Int64? {
        switch server.backend {
        case .sqlite:
            let database = try Database(path: server.database)
            return try database.fetchOne("SELECT id FROM users WHERE name = ?", name) { try $0.int64(at: 0) }
        case .postgres:
            let result = try TestPostgres.server().query("SELECT id FROM users WHERE name = '\(name)'", in: server.database)
            return Int64(result.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test("a stream whose client closed frees its slot at once, not at the next keep-alive")
    func aClosedStreamFreesItsSlotAtOnce() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        var open = try (0..<8).map { _ in try pageStream(server, cookie: browser.cookie) }
        #expect(try browser.get("/web/events").status == 429)
        open.removeLast()
        // Room is made before any stream's first keep-alive (15 s after it opened): the
        // slot was freed by the connection's close, not by a failed keep-alive write.
        let room = Deadline.poll(every: .milliseconds(100), within: .seconds(60)) {
            (try? pageStream(server, cookie: browser.cookie)) != nil
        }
        #expect(room, "room was made")
        #expect((try? open[0].read(until: "keep-alive", timeout: .milliseconds(50))) == nil, "room came only with the streams' keep-alive")
    }

    @Test("SIGHUP on a plain-HTTP server reloads nothing, says so, and the server serves on")
    func sighupOnPlainHTTP() throws {
        let server = try ServiceProcess(launcher: ["/usr/bin/prlimit", "--nofile=1024:1024"])
        server.process.signal(SIGHUP)
        server.process.signal(SIGHUP)
        #expect(try server.call("GET", SyncAPI.healthPath).status == 200, "the server survived SIGHUP")
        let stopped = try #require(server.stop())
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("SIGHUP: nothing to reload"), "\(stopped.stderr.suffix(2_000))")
    }

    @Test("SIGHUP while the server still waits for its database (before it listens) is kept, not fatal, under a 1,024 descriptor limit")
    func sighupWhileStarting() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("server.sqlite3")
        let added = try ChildProcess.run(ServiceProcess.executable.path, ["users", "add", "alice", "--database", path], environment: ServiceProcess.environment(directory))
        #expect(added.status == 0, "\(added.stderr)")
        // Another process holds the database: the server's start waits for it (its busy timeout).
        let holder = try Database(path: path)
        try holder.execute("BEGIN EXCLUSIVE")
        let server = try ChildProcess(
            "/usr/bin/prlimit", ["--nofile=1024:1024", ServiceProcess.executable.path, "--database", path, "--port", "0"],
            environment: ServiceProcess.environment(directory), streamingStdout: true)
        // Once it has the database open (and is waiting for its lock), it is sent SIGHUP.
        let opened = Deadline.poll(every: .milliseconds(10), within: .seconds(60)) {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/fd")) ?? []
            return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server.pid)/fd/\($0)")) == path }
        }
        #expect(opened, "the server opened its database")
        server.signal(SIGHUP)
        try holder.execute("COMMIT")
        let url = try #require(server.nextLine()?.trimmingCharacters(in: .whitespacesAndNewlines), "the server died of the SIGHUP")
        #expect(try ServiceProcess.call(url, "GET", SyncAPI.healthPath).status == 200)
        server.signal(SIGTERM)
        let stopped = try #require(server.wait(orKillAfter: .seconds(60)))
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("SIGHUP: nothing to reload"), "\(stopped.stderr.suffix(2_000))")
    }

    @Test("1,100 idle connections to the metrics port, under a 1,024 descriptor limit, leave /health and sync answering")
    func theMetricsPortCannotStarveTheService() throws {
        Self.raiseDescriptorLimit(to: 4_096)
        let server = try ServiceProcess(arguments: ["--metrics-port", "0"], launcher: ["/usr/bin/prlimit", "--nofile=1024:1024"])
        let metricsURL = try #require(server.process.nextLine()?.trimmingCharacters(in: .whitespacesAndNewlines))
        let base = String(metricsURL.dropLast("/metrics".count))
        let token = try server.addUser("alice")
        var idle: [RawHTTPConnection] = []
        for _ in 0..<1_100 { idle.append(try RawHTTPConnection(url: base)) }
        // Past the metrics' own limit, a connection is answered 503 and closed.
        let refused = try RawHTTPConnection(url: base).request("/metrics")
        #expect(refused.status == 503, "\(refused)")
        #expect(try server.call("GET", SyncAPI.healthPath).status == 200)
        #expect(try server.pull(device: Changes.device(1), token: token).0.status == 200)
        withExtendedLifetime(idle) {}
    }

    /// Raises this process's soft descriptor limit toward `wanted` (the tests open many sockets).
    private static func raiseDescriptorLimit(to wanted: rlim_t) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    @Test("behind a TLS-terminating proxy (--public-url https://…), the session cookie is Secure and pages say Strict-Transport-Security")
    func publicHTTPSURLMakesTheCookieSecure() throws {
        let server = try ServiceProcess(arguments: ["--public-url", "https://archive.example.com"])
        _ = try server.addUser("alice")
        let answer = try WebClient.signIn(server, secret: WebClient.secret(of: try WebClient.link(server, user: "alice", label: "phone")))
        #expect(answer.status == 303)
        #expect(answer.header("Set-Cookie")?.contains("; Secure") == true, "\(answer.header("Set-Cookie") ?? "no cookie")")
        let page = try server.call("GET", "/")
        #expect(page.header("Strict-Transport-Security") == "max-age=31536000")
        #expect(try server.call("GET", "/health").header("Strict-Transport-Security") == "max-age=31536000")
        // Without it (plain HTTP on loopback), neither.
        let plain = try ServiceProcess()
        _ = try plain.addUser("alice")
        let plainAnswer = try WebClient.signIn(plain, secret: WebClient.secret(of: try WebClient.link(plain, user: "alice", label: "phone")))
        #expect(plainAnswer.header("Set-Cookie")?.contains("Secure") == false)
        #expect(try plain.call("GET", "/").header("Strict-Transport-Security") == nil)
    }

    /// With `--public-url`, only requests for that host (with or without its default port)
    /// or for a loopback name are answered: another name pointed at this machine (DNS
    /// rebinding) gets `421`, before any route (before: every `Host` answered).
    @Test("with --public-url, a request for another host is refused 421; the public host and loopback are answered")
    func onlyThePublicHostIsAnswered() throws {
        let server = try ServiceProcess(arguments: ["--public-url", "https://Archive.Example.com"])
        let token = try server.addUser("alice")
        let port = try #require(URL(string: server.url)?.port)
        func status(host: String?, _ target: String = "/health", token: String? = nil) throws -> Int {
            let connection = try RawHTTPConnection(url: server.url)
            var head = "GET \(target) HTTP/1.1\r\n"
            if let host { head += "Host: \(host)\r\n" }
            if let token { head += "Authorization: Bearer \(token)\r\n" }
            connection.send(Array((head + "Connection: close\r\n\r\n").utf8))
            return try connection.readResponse(hasBody: true, timeout: .seconds(10)).status
        }
        for host in ["archive.example.com", "ARCHIVE.example.com:443", "127.0.0.1:\(port)", "localhost:\(port)", "localhost", "[::1]:\(port)"] {
            #expect(try status(host: host) == 200, "\(host)")
        }
        for host in ["evil.example", "archive.example.com.evil.example", "archive.example.com:8443", "127.0.0.1.evil.example", "[::1].evil", ""] {
            #expect(try status(host: host) == 421, "\(host)")
        }
        #expect(try status(host: "evil.example", SyncAPI.pullPath + "?device=\(Changes.device(1))&cursor=0", token: token) == 421)
        #expect(try status(host: nil) == 421)
        // Without --public-url, any host (as before: a server on loopback or behind a proxy that sets none).
        let plain = try ServiceProcess()
        let connection = try RawHTTPConnection(url: plain.url)
        connection.send(Array("GET /health HTTP/1.1\r\nHost: anything.example\r\nConnection: close\r\n\r\n".utf8))
        #expect(try connection.readResponse(hasBody: true, timeout: .seconds(10)).status == 200)
    }
}
