import ArchiveSyncWire
import Foundation
import SQLite
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real `archive-server` against clients that flood, trickle, hold or probe: each case
/// keeps the service answering everyone else, within its bounds, saying nothing of its
/// inside. Each was seen fail before its fix.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServiceHostileClientTests {
    /// More idle connections than the descriptor limit (256 here) leaves room for: the
    /// service keeps its connection bound below it (said at start), refuses the rest with
    /// its 503, and still answers (seen spin on EMFILE at full CPU, answer nothing, and at
    /// times die).
    @Test func aDescriptorLimitBoundsTheConnectionsAndTheServiceKeepsAnswering() throws {
        // Idle connections stay open (an hour's idle timeout): on a busy machine the default
        // 30 s could close them before the test asks, freeing the places it means to fill.
        let server = try ServiceProcess(arguments: ["--idle-timeout", "3600"], launcher: ["/bin/sh", "-c", "ulimit -n 256 && exec \"$@\"", "sh"])
        var idle: [RawHTTPConnection] = []
        for _ in 0..<300 { idle.append(try RawHTTPConnection(url: server.url)) }
        let crowded = try server.call("GET", SyncAPI.healthPath, timeout: Deadline.standard)
        #expect(crowded.status == 503 && crowded.text.contains("connections open, its limit"), "\(crowded.status) \(crowded.text)")
        idle.removeAll()
        // Until the server has seen the closes, a request may still meet the limit's 503 (or
        // its close before the request is written): asked again until answered 200.
        #expect(Deadline.poll(every: .milliseconds(50)) { (try? server.call("GET", SyncAPI.healthPath))?.status == 200 }, "no 200 once the idle connections closed")
        let stopped = try #require(server.stop())
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("at most 192 connections, not 1024 (--max-connections): the descriptor limit is 256, 64 kept"), "\(stopped.stderr)")
    }

    /// A body on a request that takes none (`GET /health` with `Content-Length`, trickled)
    /// is not read: the answer closes the connection, so such requests hold no slot (seen
    /// hold every slot of --max-connections while bytes trickled).
    @Test func aBodyARequestDoesNotTakeIsNotReadAndHoldsNoSlot() throws {
        let server = try ServiceProcess(arguments: ["--max-connections", "3"])
        var trickling: [RawHTTPConnection] = []
        for _ in 0..<3 {
            let connection = try RawHTTPConnection(url: server.url)
            connection.send("GET \(SyncAPI.healthPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\nx")
            let answer = try connection.readResponse(timeout: Deadline.standard)
            #expect(answer.status == 200 && answer.header("Connection")?.lowercased() == "close", "\(answer.status) \(answer.headers)")
            connection.send("y")
            #expect(connection.waitForClose(timeout: Deadline.standard), "the connection stayed open for the body")
            trickling.append(connection)
        }
        #expect(try server.call("GET", SyncAPI.healthPath).status == 200)
    }

    /// A push body trickled a byte at a time ends at `--body-timeout` with a 408, the
    /// connection closed (seen last as long as the bytes came: each one reset the idle timeout).
    @Test func aTrickledPushBodyEndsAtTheBodyTimeout() throws {
        let server = try ServiceProcess(arguments: ["--body-timeout", "1"])
        let token = try server.addUser("alice")
        let connection = try RawHTTPConnection(url: server.url)
        connection.send("POST \(SyncAPI.pushPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
        // A byte every 100 ms until the server says something (its 408) or closes.
        connection.trickle(UInt8(ascii: " "), every: .milliseconds(100))
        let answer = try connection.readResponse(timeout: Deadline.standard)
        #expect(answer.status == 408, "\(answer.status) \(answer.text)")
        #expect(answer.text.contains("did not arrive within 1 s"), "\(answer.text)")
        #expect(answer.header("Connection")?.lowercased() == "close")
    }

    /// Bodies in flight share one budget (`--max-body-bytes-in-flight`): while one push holds
    /// it, another is refused 503 with Retry-After, unread; once it is free, the same push
    /// lands (seen: every body held at once, 892 MiB for 200 pushes).
    @Test func bodiesInFlightShareOneBudget() throws {
        let server = try ServiceProcess(arguments: ["--max-body-bytes", "1048576", "--max-body-bytes-in-flight", "1048576"])
        let token = try server.addUser("alice")
        let holder = try RawHTTPConnection(url: server.url)
        holder.send("POST \(SyncAPI.pushPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{")
        #expect(holder.waitUntilServerHasRead())
        let phone = Changes.device(1)
        let refused = try server.push([Changes.stored(1, at: 1_000, by: phone)], device: phone, token: token)
        #expect(refused.status == 503, "\(refused.status) \(refused.text)")
        #expect(refused.text.contains("too many pushes at once") && refused.header("Retry-After") != nil, "\(refused.text)")
        holder.send(String(repeating: " ", count: 1_048_575))
        let held = try holder.readResponse(timeout: Deadline.standard)
        #expect(held.status == 400, "\(held.status) \(held.text)")  // `{` and spaces: not a push
        let landed = try server.push([Changes.stored(1, at: 1_000, by: phone)], device: phone, token: token)
        #expect(landed.status == 200, "\(landed.status) \(landed.text)")
    }

    /// A `500` says the request's ID and nothing of the storage (a table, SQL, SQLSTATE,
    /// PostgreSQL's words); the log says what failed under that ID (seen carry the
    /// storage error's text, which `archive sync` then printed).
    @Test(arguments: ServiceBackend.allCases)
    func aFailureAnswers500WithNothingOfTheInside(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let token = try server.addUser("alice")
        let sql = "ALTER TABLE user_favorites RENAME TO user_favorites_gone"
        switch backend {
        case .sqlite: try Database(path: server.database).execute(sql)
        case .postgres: _ = try TestPostgres.server().query(sql, in: server.database)
        }
        let (answer, _) = try server.pull(device: Changes.device(1), limit: 10, token: token)
        #expect(answer.status == 500, "\(answer.status) \(answer.text)")
        let id = try #require(answer.text.firstMatch(of: /request ([0-9a-f]+) in its log/)?.1, "\(answer.text)")
        for inside in ["user_favorites", "SQLSTATE", "SQL", "relation", "no such table", server.database] {
            #expect(!answer.text.contains(inside), "\(inside) in \(answer.text)")
        }
        let stopped = try #require(server.stop())
        #expect(stopped.stderr.contains("request=\(id)") && stopped.stderr.contains("user_favorites"), "\(stopped.stderr)")
    }

    /// A pull of no changes (`limit=0`) registers no device, so it cannot hold removals back
    /// for good (seen: every device ID probed became a device that never pulled).
    @Test(arguments: ServiceBackend.allCases)
    func aProbeRegistersNoDevice(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        let phone = Changes.device(1)
        #expect(try server.push([Changes.stored(1, at: 1_000, by: phone)], device: phone, token: try tokens(phone)).status == 200)
        for byte in UInt8(2)...5 {
            #expect(try server.pull(device: Changes.device(byte), limit: 0, token: try tokens(Changes.device(byte))).0.status == 200)
        }
        let listed = try server.admin(["users", "list", "--json"])
        let users = (try listed.json() as? [String: Any])?["users"] as? [[String: Any]]
        #expect(users?.first?["devices"] as? Int == 1, "\(listed.stdout)")
        // A removal every real device pulled is dropped, whatever was probed.
        #expect(try server.push([Changes.removed(1, at: 2_000, by: phone)], device: phone, through: 1, token: try tokens(phone)).status == 200)
        let (_, page) = try server.pull(device: phone, limit: 10, token: try tokens(phone))
        _ = try server.pull(device: phone, cursor: try #require(page).cursor, limit: 10, token: try tokens(phone))
        let (_, again) = try server.pull(device: Changes.device(9), limit: 10, token: try tokens(Changes.device(9)))
        #expect(again?.changes.isEmpty == true, "the removal was held back: \(String(describing: again))")
    }

    /// User names ignore case and need a letter or a digit; the names a database already has
    /// are migrated: folded, the later of two that differ only by case and any name of
    /// punctuation only renamed by their IDs, every user kept (seen: `Alice`, `alice` and
    /// `ALICE` three users, `..` a name).
    @Test(arguments: ServiceBackend.allCases)
    func userNamesIgnoreCaseAndOldOnesAreMigrated(backend: ServiceBackend) throws {
        let directory = try TemporaryDirectory()
        let storage = try backend.newStorage(in: directory)
        func run(_ arguments: [String]) throws -> ChildProcess.Result {
            try ChildProcess.run(ServiceProcess.executable.path, arguments + storage, environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        }
        #expect(try run(["users", "add", "Alice"]).status == 0)
        let again = try run(["users", "add", "ALICE"])
        #expect(again.status != 0 && again.stderr.contains("user alice exists already"), "\(again.stderr)")
        for name in [".", "..", "-", "_.-"] {
            let refused = try run(["users", "add", name])
            #expect(refused.status != 0 && refused.stderr.contains("with a letter or a digit"), "\(name): \(refused.stderr)")
        }
        #expect(try run(["users", "token", "aLiCe"]).status == 0)

        // A database from before the rule: the migration is undone, names of the old kind added.
        let undo = [
            "DROP INDEX users_by_folded_name",
            backend == .sqlite ? "DELETE FROM schema_migrations WHERE version = 2" : "DELETE FROM archive_server_migrations WHERE version = 2",
        ] + ["Bob", "bob", "BOB", ".."].map { name in
            backend == .sqlite
                ? "INSERT INTO users (name, feed, created_at) VALUES ('\(name)', randomblob(16), 1)"
                : "INSERT INTO users (name, feed, created_at) VALUES ('\(name)', decode(md5(random()::text), 'hex'), 1)"
        }
        switch backend {
        case .sqlite:
            let database = try Database(path: storage[1])
            for sql in undo { try database.execute(sql) }
        case .postgres:
            for sql in undo { _ = try TestPostgres.server().query(sql, in: storage[1]) }
        }
        let listed = try run(["users", "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let names = ((try listed.json() as? [String: Any])?["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        #expect(names.count == 5, "\(names)")
        #expect(names.contains("alice") && names.contains("bob"), "\(names)")
        #expect(names.filter { $0.hasPrefix("bob-") }.count == 2 && names.contains { $0.hasPrefix("user-") }, "\(names)")
        #expect(names.allSatisfy { $0 == $0.lowercased() }, "\(names)")
    }

    /// A port in use and a PostgreSQL nobody listens at are said in plain words, no errno
    /// (seen: "bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)").
    @Test func bindAndConnectionFailuresArePlainWords() throws {
        let server = try ServiceProcess()
        let directory = try TemporaryDirectory()
        let port = try #require(URL(string: server.url)?.port)
        let taken = try ChildProcess.run(
            ServiceProcess.executable.path, ["--database", directory.path("other.sqlite3"), "--port", "\(port)"],
            environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        #expect(taken.status != 0 && taken.stderr.contains("cannot serve on 127.0.0.1:\(port): the address is already in use"), "\(taken.stderr)")
        // The same port, now closed: nothing listens there.
        _ = server.stop()
        let postgres = try ChildProcess.run(
            ServiceProcess.executable.path, ["--postgres", "postgres://archive@127.0.0.1:\(port)/favorites", "users", "list"],
            environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        #expect(postgres.status != 0 && postgres.stderr.contains("the connection was refused"), "\(postgres.stderr)")
        for result in [taken, postgres] {
            #expect(!result.stderr.contains("errno") && !result.stderr.contains("error set"), "\(result.stderr)")
        }
    }

    /// A pushed number out of range is named in the 400, not "not valid JSON".
    @Test func anOutOfRangeNumberInAPushIsNamed() throws {
        let server = try ServiceProcess()
        let token = try server.addUser("alice")
        let body = #"{"device":"\#(Changes.device(1))","through":1,"seen":0,"changes":[{"id":1,"stamp":16606973747200000000,"device":"\#(Changes.device(1))"}]}"#
        let answer = try server.call("POST", SyncAPI.pushPath, token: token, body: Array(body.utf8))
        #expect(answer.status == 400, "\(answer.text)")
        #expect(answer.text.contains("changes[0].stamp: stamp is 16606973747200000000: not a whole number from"), "\(answer.text)")
    }
}
