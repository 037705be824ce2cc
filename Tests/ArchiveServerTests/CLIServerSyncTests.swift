import Foundation
import TestSupport
import Testing

/// `archive sync --server` between two real `archive` databases through a real `archive-server`.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLIServerSyncTests {
    static let archive = BuiltProduct.url(named: "archive")

    private func archive(_ arguments: [String], database: String, in directory: TemporaryDirectory, environment extra: [String: String] = [:]) throws -> ChildProcess.Result {
        try ServiceProcess.archive(arguments, database: database, in: directory, environment: extra)
    }

    /// `archive sync --server URL REST…` given `token` on its standard input (`--token-stdin`,
    /// kept for the next sync as `--token` was: `--token` itself is refused).
    private func sync(_ url: String, token: String, _ rest: [String] = [], database: String, in directory: TemporaryDirectory) throws -> ChildProcess.Result {
        try ServiceProcess.archive(["sync", "--server", url, "--token-stdin"] + rest, database: database, in: directory, input: .pipe(Data((token + "\n").utf8)))
    }

    private func favoriteIDs(_ database: String, in directory: TemporaryDirectory) throws -> [Int] {
        let result = try archive(["favorites", "--json"], database: database, in: directory)
        let favorites = (try result.json() as? [String: Any])?["favorites"] as? [[String: Any]] ?? []
        return favorites.compactMap { $0["id"] as? Int }.sorted()
    }

    private func moved(_ result: ChildProcess.Result) throws -> (received: Int, sent: Int) {
        let json = try result.json() as? [String: Any]
        return ((json?["received"] as? [String: Any])?["applied"] as? Int ?? -1, (json?["sent"] as? [String: Any])?["applied"] as? Int ?? -1)
    }

    /// `archive ARGUMENTS` on a terminal (util-linux `script`, a pseudo-terminal), as a
    /// person runs it: what the terminal showed, its escape sequences and redraws included.
    private func onTerminal(_ arguments: [String], database: String, token: String, in directory: TemporaryDirectory) throws -> ChildProcess.Result {
        let command = ([Self.archive.path, arguments[0], "--database", database] + arguments.dropFirst()).map { "'\($0)'" }.joined(separator: " ")
        var environment = ServiceProcess.environment(directory)
        environment["ARCHIVE_SYNC_TOKEN"] = token
        environment["NO_COLOR"] = "1"
        environment["TERM"] = "xterm"
        return try ChildProcess.run("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], environment: environment, timeout: .seconds(120))
    }

    @Test("a first sync on a terminal shows its progress from its first page, sending and receiving")
    func aFirstSyncShowsItsProgressFromItsFirstPage() throws {
        let server = try ServiceProcess()
        let directory = server.directory
        let token = try server.addUser("alice")
        let laptopToken = try server.addDevice("laptop", of: "alice")
        // 3,000 favorites: three pushes and three pages of 1,000 (the defaults).
        let records = (1...3_000).map { id in
            ["id": id, "photoUrl": "https://photos.example/\(id).jpg", "category": "洋食", "dishName": "チーズハンバーグ \(id)",
             "shopName": "グリル銀河", "introduction": "", "storedAt": "2026-01-01T00:00:00.000Z"] as [String: Any]
        }
        let file = directory.path("favorites.json")
        try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: file))
        let phone = directory.path("phone.sqlite3"), laptop = directory.path("laptop.sqlite3")
        #expect(try archive(["import", file], database: phone, in: directory).status == 0)
        let pushed = try onTerminal(["sync", "--server", server.url], database: phone, token: token, in: directory)
        #expect(pushed.status == 0, "\(pushed.stdout)")
        #expect(pushed.stdout.contains("sending 1000 of 3000") && pushed.stdout.contains("sending 3000 of 3000"), "\(pushed.stdout.suffix(1_000))")
        let pulled = try onTerminal(["sync", "--server", server.url], database: laptop, token: laptopToken, in: directory)
        #expect(pulled.status == 0, "\(pulled.stdout)")
        #expect(pulled.stdout.contains("receiving 1000 of 3000") && pulled.stdout.contains("receiving 3000 of 3000"), "\(pulled.stdout.suffix(1_000))")
        let counted = try archive(["favorites", "--json", "--limit", "10000"], database: laptop, in: directory)
        #expect(((try counted.json() as? [String: Any])?["favorites"] as? [Any])?.count == 3_000)
        // The laptop sent nothing of its own: no sending bar, and one push telling the service
        // how far its feed is the service's (not one a page of what it pulled).
        #expect(!pulled.stdout.contains("sending"), "\(pulled.stdout.suffix(1_000))")
        // Not on a terminal (a pipe, a log): no bar at all; and nothing moves again.
        let quiet = try archive(["sync", "--server", server.url, "--json"], database: laptop, in: directory, environment: ["ARCHIVE_SYNC_TOKEN": laptopToken])
        #expect(!quiet.stderr.contains("receiving") && !quiet.stderr.contains("\u{1B}["), "\(quiet.stderr)")
        #expect(try moved(quiet) == (0, 0))
        let log = try #require(server.stop()).stderr
        let pushes = log.components(separatedBy: "path=/v1/sync/push").count - 1
        #expect(pushes == 4, "the phone's 3 pushes and the laptop's 1: \(pushes)")
    }

    @Test(arguments: ServiceBackend.allCases)
    func twoDevicesConvergeThroughTheService(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let token = try server.addUser("alice")  // the phone's: it binds to the phone at its first sync
        let laptopToken = try server.addDevice("laptop", of: "alice")
        let directory = server.directory
        let phone = directory.path("phone.sqlite3"), laptop = directory.path("laptop.sqlite3")
        for id in ["17", "21"] { #expect(try archive(["add", id], database: phone, in: directory).status == 0) }
        #expect(try archive(["add", "33"], database: laptop, in: directory).status == 0)

        let first = try sync(server.url, token: token, ["--json"], database: phone, in: directory)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try moved(first) == (0, 2))
        let second = try archive(["sync", "--server", server.url, "--json"], database: laptop, in: directory, environment: ["ARCHIVE_SYNC_TOKEN": laptopToken])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try moved(second) == (2, 1))
        #expect(try sync(server.url, token: token, database: phone, in: directory).status == 0)
        #expect(try favoriteIDs(phone, in: directory) == [17, 21, 33])
        #expect(try favoriteIDs(laptop, in: directory) == [17, 21, 33])

        // The laptop un-hearts 17: the phone follows.
        #expect(try archive(["remove", "17"], database: laptop, in: directory).status == 0)
        #expect(try sync(server.url, token: laptopToken, database: laptop, in: directory).status == 0)
        #expect(try sync(server.url, token: token, database: phone, in: directory).status == 0)
        #expect(try favoriteIDs(phone, in: directory) == [21, 33])
        // The server kept as a setting: `archive sync` alone meets it.
        #expect(try archive(["settings", "set", "syncServer", server.url], database: phone, in: directory).status == 0)
        let kept = try archive(["sync", "--json"], database: phone, in: directory, environment: ["ARCHIVE_SYNC_TOKEN": token])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect((try kept.json() as? [String: Any])?["with"] as? String == server.url)
        // Nothing new: nothing moves.
        let idle = try sync(server.url, token: token, ["--json"], database: phone, in: directory)
        #expect(try moved(idle) == (0, 0))
        #expect(!first.stdout.contains(token) && !first.stderr.contains(token), "the token was printed")
    }

    @Test(arguments: ServiceBackend.allCases)
    func offlineOrRefusedItSaysSoAndLeavesTheFavorites(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let token = try server.addUser("alice")
        let directory = server.directory
        let phone = directory.path("phone.sqlite3")
        #expect(try archive(["add", "17"], database: phone, in: directory).status == 0)

        let wrong = try sync(server.url, token: "fa_wrong", database: phone, in: directory)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("refused the token (401)"), "\(wrong.stderr)")
        // The advice that helps one device and harms no other: a token of its own, not a new
        // one for the user (`users token` stops every device's).
        #expect(wrong.stderr.contains("archive-server devices add USER LABEL") && !wrong.stderr.contains("users token NAME"), "\(wrong.stderr)")

        // The token file: refused while others may read it, used once it is private.
        let tokenFile = phone + ".sync-token"
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
        chmod(tokenFile, 0o644)
        let exposed = try archive(["sync", "--server", server.url], database: phone, in: directory)
        #expect(exposed.status == 1)
        #expect(exposed.stderr.contains("chmod 600"), "\(exposed.stderr)")
        chmod(tokenFile, 0o600)
        #expect(try archive(["sync", "--server", server.url], database: phone, in: directory).status == 0)

        let missing = try archive(["sync", "--server", server.url], database: directory.path("other.sqlite3"), in: directory)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no sync token"), "\(missing.stderr)")

        // The service goes away: a clear failure, the favorites as they were.
        #expect(try archive(["add", "21"], database: phone, in: directory).status == 0)
        let url = server.url
        #expect(server.stop()?.status == 0)
        let offline = try sync(url, token: token, database: phone, in: directory)
        #expect(offline.status == 1)
        #expect(offline.stderr.contains("cannot reach"), "\(offline.stderr)")
        #expect(try favoriteIDs(phone, in: directory) == [17, 21])

        // `archive sync` alone meets the server kept by the last sync: offline too.
        let kept = try archive(["sync"], database: phone, in: directory)
        #expect(kept.status == 1 && kept.stderr.contains("cannot reach \(url)"), "\(kept.stderr)")
        let nowhere = try archive(["sync"], database: directory.path("never-synced.sqlite3"), in: directory)
        #expect(nowhere.status == 64, "a usage error: nothing names what to sync with")
        #expect(nowhere.stderr.contains("or --server URL (kept for the next sync)"), "\(nowhere.stderr)")
        let both = try archive(["sync", directory.path("x.sqlite3"), "--server", url], database: phone, in: directory)
        #expect(both.status != 0)
        #expect(both.stderr.contains("not both"))
        let credentials = try sync("http://alice:secret@127.0.0.1:1", token: token, database: phone, in: directory)
        #expect(credentials.status == 1)
        #expect(credentials.stderr.contains("not a service URL"), "\(credentials.stderr)")
    }
}
