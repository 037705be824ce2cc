import ArchiveSyncWire
import Foundation
import TestSupport
import Testing
import ArchiveSyncModel

/// The service tried as an attacker would: with user A's token no request reads or
/// changes user B's favorites; every malformed, forged, oversized or unauthenticated
/// request is refused with a clear status and nothing written.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct SyncSecurityTests {
    let device = Changes.device(0x11), other = Changes.device(0x22)

    /// What `token`'s user holds, as its device (``device``, which the token is bound to)
    /// reads the whole feed from its start.
    private func holdings(_ server: ServiceProcess, _ token: String) throws -> [Int: WireChange] {
        let page = try #require(try server.pull(device: device, token: token).1)
        return Dictionary(uniqueKeysWithValues: page.changes.map { ($0.id, $0) })
    }

    @Test(arguments: ServiceBackend.allCases)
    func oneUsersTokenNeverReachesAnothersFavorites(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let alice = try server.addUser("alice"), bob = try server.addUser("bob")
        #expect(try server.push([Changes.stored(17, at: 1_000, by: device)], device: device, token: alice).status == 200)
        // Bob asks for Alice's IDs, with Alice's device, and with forged cursors: he sees only his own (nothing).
        for cursor: Int64 in [0, 1, 2, 999_999, Int64.max] {
            let (response, page) = try server.pull(device: device, cursor: cursor, token: bob)
            #expect(response.status == 200)
            #expect(page?.changes.isEmpty == true, "cursor \(cursor) showed bob \(page?.changes ?? [])")
        }
        // Bob "removes" Alice's favorite 17 with a far later stamp: it is his own 17 that changes.
        #expect(try server.push([Changes.removed(17, at: 9_999_999, by: device)], device: device, token: bob).status == 200)
        #expect(try holdings(server, alice)[17]?.favorite != nil, "alice's favorite survived bob's push")
        #expect(try holdings(server, bob)[17]?.favorite == nil)
        // The feeds are different: a cursor of one is meaningless in the other.
        #expect(try server.pull(device: device, token: alice).1?.feed != server.pull(device: device, token: bob).1?.feed)
    }

    @Test(arguments: ServiceBackend.allCases)
    func everyAuthenticationFailureIsTheSameBare401(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let alice = try server.addUser("alice")
        _ = try server.addUser("bob")
        let target = "\(SyncAPI.pullPath)?device=\(device)&cursor=0"
        var refusals: [(String, RawHTTPConnection.Response)] = []
        refusals.append(("no header", try server.call("GET", target)))
        refusals.append(("token in the query", try server.call("GET", target + "&access_token=\(alice)")))
        refusals.append(("Basic", try server.call("GET", target, headers: ["Authorization: Basic \(alice)"])))
        refusals.append(("no scheme", try server.call("GET", target, headers: ["Authorization: \(alice)"])))
        refusals.append(("Bearer alone", try server.call("GET", target, headers: ["Authorization: Bearer"])))
        refusals.append(("two spaces", try server.call("GET", target, headers: ["Authorization: Bearer  \(alice)"])))
        refusals.append(("two headers", try server.call("GET", target, token: alice, headers: ["Authorization: Bearer \(alice)"])))
        refusals.append(("a guessed token", try server.call("GET", target, token: "fa_" + String(repeating: "A", count: 43))))
        refusals.append(("a truncated token", try server.call("GET", target, token: String(alice.dropLast()))))
        refusals.append(("a huge header", try server.call("GET", target, token: String(repeating: "x", count: 4_000))))
        #expect(try server.admin(["users", "revoke", "alice"]).status == 0)
        refusals.append(("a revoked token", try server.call("GET", target, token: alice)))
        refusals.append(("a revoked token's push", try server.push([Changes.stored(1, at: 1, by: device)], device: device, token: alice)))
        for (what, response) in refusals {
            #expect(response.status == 401, "\(what): \(response.status) \(response.text)")
            #expect(response.text == #"{"error":"unauthorized"}"#, "\(what): \(response.text)")
            #expect(response.header("WWW-Authenticate") == "Bearer", "\(what)")
        }
        // A new token lets alice back in; the revoked one stays refused; her favorites were never touched.
        let renewed = try server.admin(["users", "token", "alice"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try server.pull(device: device, token: renewed).0.status == 200)
        #expect(try server.pull(device: device, token: alice).0.status == 401)
        // A removed user's token: refused.
        let carol = try server.addUser("carol")
        #expect(try server.admin(["users", "remove", "carol"]).status == 0)
        #expect(try server.pull(device: device, token: carol).0.status == 401)
    }

    @Test(arguments: ServiceBackend.allCases)
    func badBatchesAreRefusedWholeAndWriteNothing(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend, arguments: ["--max-push", "10", "--max-body-bytes", "65536"])
        let token = try server.addUser("alice")
        #expect(try server.push([Changes.stored(1, at: 1_000, by: device)], device: device, token: token).status == 200)
        let valid = Changes.stored(2, at: 2_000, by: device)
        var blank = WireChange(valid)
        blank.favorite?.dishName = "   "
        var badStamp = WireChange(valid)
        badStamp.stamp = HybridTimestamp(milliseconds: HybridTimestamp.maximumMilliseconds, counter: 0xFFFF).rawValue + 1
        var negativeStamp = WireChange(valid)
        negativeStamp.stamp = -1
        var badDevice = WireChange(valid)
        badDevice.device = "zz"
        var badID = WireChange(valid)
        badID.id = 0
        // Each bad batch refused for its own reason, the one its answer names (seen red with the
        // NUL check off: the NUL batch was refused, for another reason, only while it also
        // held one ID twice).
        var badObject = WireChange(Changes.stored(3, at: 2_000, by: device))
        badObject.favorite?.dishName = "a\u{0}b"
        let cases: [(String, [WireChange], Int, String)] = [
            ("a NUL in a field", [WireChange(valid), badObject], 400, "change 1 (favorite 3) is invalid: field 'dishName' contains a NUL character"),
            ("a blank dish name", [blank], 400, "field 'dishName' must not be empty"),
            ("a stamp past the limit", [badStamp], 400, "stamp \(badStamp.stamp) is out of range"),
            ("a negative stamp", [negativeStamp], 400, "stamp -1 is out of range"),
            ("a malformed device", [badDevice], 400, "device must be 32 hexadecimal digits"),
            ("ID 0", [badID], 400, "the ID must be a positive integer"),
            ("one ID twice", [WireChange(valid), WireChange(Changes.removed(2, at: 2_001, by: device))], 400, "changes 0 and 1 are both for favorite 2"),
            ("eleven changes", (10...20).map { WireChange(Changes.stored($0, at: 3_000, by: device)) }, 413, "the push has 11 changes; the limit is 10"),
        ]
        for (what, changes, status, says) in cases {
            let request = SyncPushRequest(device: device, through: 1, seen: 0, changes: changes)
            let response = try server.call("POST", SyncAPI.pushPath, token: token, body: Array(try JSONEncoder().encode(request)))
            #expect(response.status == status, "\(what): \(response.status) \(response.text)")
            #expect(response.text.contains("\"error\"") && response.text.contains(says), "\(what): \(response.text)")
        }
        // Stamps at the limits: the greatest valid one is far more than a day ahead of the
        // server's clock, and refused as such (SyncTrustTests).
        var greatest = WireChange(Changes.stored(3, at: 0, by: device))
        greatest.stamp = HybridTimestamp(milliseconds: HybridTimestamp.maximumMilliseconds, counter: 0xFFFF).rawValue
        let atLimit = try server.call("POST", SyncAPI.pushPath, token: token, body: Array(try JSONEncoder().encode(SyncPushRequest(device: device, through: 1, seen: 0, changes: [greatest]))))
        #expect(atLimit.status == 400 && atLimit.text.contains("ahead of the server's clock"), "\(atLimit.text)")
        // Bodies that are not a push at all.
        let bodies: [(String, [UInt8])] = [
            ("invalid UTF-8", Array(#"{"device":""#.utf8) + [0xFF, 0xFE] + Array(#"","through":0,"changes":[]}"#.utf8)),
            ("deep JSON", Array(String(repeating: "[", count: 50_000).utf8)),
            ("not JSON", Array("hello".utf8)),
            ("a missing field", Array(#"{"device":"\#(device)","changes":[]}"#.utf8)),
            ("a negative through", Array(#"{"device":"\#(device)","through":-1,"seen":0,"changes":[]}"#.utf8)),
            ("a negative seen", Array(#"{"device":"\#(device)","through":0,"seen":-1,"changes":[]}"#.utf8)),
            ("a huge number", Array(#"{"device":"\#(device)","through":1e999,"seen":0,"changes":[]}"#.utf8)),
        ]
        for (what, body) in bodies {
            let response = try server.call("POST", SyncAPI.pushPath, token: token, body: body)
            #expect(response.status == 400, "\(what): \(response.status) \(response.text)")
        }
        // A body over --max-body-bytes: refused from its announced length, unread, the connection closed.
        let connection = try RawHTTPConnection(url: server.url)
        connection.send("POST \(SyncAPI.pushPath) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 10000000\r\n\r\n{")
        let tooLarge = try connection.readResponse()
        #expect(tooLarge.status == 413)
        #expect(connection.waitForClose(timeout: .seconds(30)))
        // Nothing of any refused batch was written: favorite 1 only.
        #expect(try holdings(server, token).keys.sorted() == [1])
    }

    @Test(arguments: ServiceBackend.allCases)
    func pullQueriesAreCheckedStrictly(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let token = try server.addUser("alice")
        for query in [
            "cursor=0", "device=\(device)&cursor=-1", "device=\(device)&cursor=abc", "device=\(device)&cursor=99999999999999999999",
            "device=\(device)&limit=-1", "device=\(device)&device=\(other)", "device=\(device)&cursor=1&cursor=2", "device=xyz",
            "device=\(device)&extra=1", "device=\(device)&cursor=%FF",
        ] {
            let response = try server.call("GET", "\(SyncAPI.pullPath)?\(query)", token: token)
            #expect(response.status == 400, "\(query): \(response.status) \(response.text)")
        }
        #expect(try server.call("POST", SyncAPI.pullPath, token: token, body: []).status == 405)
        #expect(try server.call("GET", SyncAPI.pushPath, token: token).status == 405)
        #expect(try server.call("GET", "/v1/other", token: token).status == 404)
    }

    @Test(arguments: ServiceBackend.allCases)
    func connectionsPastTheLimitAreTurnedAway(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend, arguments: ["--max-connections", "2"])
        var first: RawHTTPConnection? = try RawHTTPConnection(url: server.url)
        let second = try RawHTTPConnection(url: server.url)
        #expect(try first?.request("/health").status == 200)
        #expect(try second.request("/health").status == 200)
        let third = try RawHTTPConnection(url: server.url)
        let refused = try third.readResponse()
        #expect(refused.status == 503, "\(refused.text)")
        #expect(third.waitForClose(timeout: .seconds(30)))
        // A closed connection frees its place (the server learns of the close on its own time).
        first = nil
        let freed = Deadline.poll(every: .milliseconds(20)) {
            guard let connection = try? RawHTTPConnection(url: server.url), let response = try? connection.request("/health") else { return false }
            return response.status == 200
        }
        #expect(freed, "no place freed after a connection closed")
        #expect(try second.request("/health").status == 200, "the second connection stays served")
    }

    @Test(arguments: ServiceBackend.allCases)
    func noTokenIsEverLogged(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let token = try server.addUser("alice")
        _ = try server.pull(device: device, token: token)
        _ = try server.call("GET", "\(SyncAPI.pullPath)?device=\(device)&access_token=\(token)")
        _ = try server.call("GET", "/health", headers: ["X-Token: \(token)"])
        let result = try #require(server.stop())
        #expect(result.stderr.contains("request"), "one line per request: \(result.stderr)")
        #expect(result.stderr.contains("user=alice"))
        #expect(!result.stderr.contains(token), "a token in the logs")
        #expect(!result.stderr.contains(String(token.dropFirst(3).prefix(16))), "a part of a token in the logs")
        // The database holds only its hash.
        switch backend {
        case .sqlite:
            for file in [server.database, server.database + "-wal"] {
                let bytes = FileManager.default.contents(atPath: file) ?? Data()
                #expect(!String(decoding: bytes, as: UTF8.self).contains(String(token.dropFirst(3))), "\(file) holds the token")
            }
        case .postgres:
            let dump = try TestPostgres.server().query("SELECT u::text FROM users u", in: server.database)
            #expect(!dump.contains(String(token.dropFirst(3))) && !dump.isEmpty, "the users table holds the token: \(dump)")
        }
    }
}
