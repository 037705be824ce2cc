import Foundation
import TestSupport
import Testing

/// `archive sync --server URL --token T` keeps the server and the token (the token file,
/// mode 600) so that `archive sync` alone syncs next time; `archive sync --status [--json]`
/// says the server, the last sync, the changes waiting and whether the service accepts the
/// token; a sync that moves many changes shows its progress on a terminal. Issue 59, §2.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLISyncStatusTests {
    private func archive(_ arguments: [String], database: String, in directory: TemporaryDirectory, input: ChildProcess.Input = .null) throws -> ChildProcess.Result {
        try ServiceProcess.archive(arguments, database: database, in: directory, input: input)
    }

    private func status(_ database: String, in directory: TemporaryDirectory) throws -> [String: Any] {
        let result = try archive(["sync", "--status", "--json"], database: database, in: directory)
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try result.json() as? [String: Any], "\(result.stdout)")
    }

    @Test(arguments: ServiceBackend.allCases)
    func theServerAndTokenAreKeptAndStatusSaysWhereSyncStands(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let token = try server.addUser("alice")
        let directory = server.directory
        let phone = directory.path("phone.sqlite3"), tokenFile = phone + ".sync-token"
        #expect(try archive(["add", "17"], database: phone, in: directory).status == 0)

        var said = try status(phone, in: directory)
        #expect(said["server"] == nil && said["lastSync"] == nil && said["waiting"] as? Int == 1 && said["token"] as? String == "unchecked", "\(said)")

        // A wrong token: nothing is kept.
        let wrong = try archive(["sync", "--server", server.url, "--token-stdin"], database: phone, in: directory, input: .pipe(Data("fa_wrong\n".utf8)))
        #expect(wrong.status != 0 && !FileManager.default.fileExists(atPath: tokenFile), "\(wrong.stderr)")
        #expect(try status(phone, in: directory)["server"] == nil, "a refused server was kept")

        let first = try archive(["sync", "--server", server.url, "--token-stdin"], database: phone, in: directory, input: .pipe(Data((token + "\n").utf8)))
        #expect(first.status == 0, "\(first.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the token file's mode is \(String(mode ?? 0, radix: 8))")
        #expect(String(decoding: FileManager.default.contents(atPath: tokenFile) ?? Data(), as: UTF8.self) == token + "\n")

        // `archive sync` alone: the kept server and token.
        #expect(try archive(["add", "21"], database: phone, in: directory).status == 0)
        said = try status(phone, in: directory)
        #expect(said["server"] as? String == server.url && said["token"] as? String == "accepted" && said["waiting"] as? Int == 1, "\(said)")
        #expect((said["lastSync"] as? String)?.hasPrefix("20") == true, "\(said)")
        let alone = try archive(["sync"], database: phone, in: directory)
        #expect(alone.status == 0 && alone.stdout.contains("sent 1"), "\(alone.stdout) \(alone.stderr)")
        #expect(try status(phone, in: directory)["waiting"] as? Int == 0)
        let text = try archive(["sync", "--status"], database: phone, in: directory).stdout
        #expect(text.contains("server: \(server.url)") && text.contains("waiting: 0 local change(s)") && text.contains("token: accepted"), "\(text)")

        // The phone's token on another device: another device's; revoked: refused.
        let laptop = directory.path("laptop.sqlite3")
        #expect(try archive(["settings", "set", "syncServer", server.url], database: laptop, in: directory).status == 0)
        try FileManager.default.copyItem(atPath: tokenFile, toPath: laptop + ".sync-token")
        said = try status(laptop, in: directory)
        #expect(said["token"] as? String == "anotherDevice" && (said["reason"] as? String)?.contains("belongs to another device") == true, "\(said)")
        #expect(try server.admin(["devices", "revoke", "alice", "first"]).status == 0)
        said = try status(phone, in: directory)
        #expect(said["token"] as? String == "refused", "\(said)")
        // Offline: said, not a failure of --status.
        _ = server.stop()
        said = try status(phone, in: directory)
        #expect(said["token"] as? String == "unreachable" && (said["reason"] as? String)?.contains("cannot reach") == true, "\(said)")
    }

    /// On a terminal, a sync that moves 1,500 changes draws its progress as import does
    /// (`script` gives it one); piped, nothing of it.
    @Test func aLargeSyncShowsItsProgressOnATerminal() throws {
        let script = try Prerequisite.path(of: "script", debianPackage: "bsdutils")
        let server = try ServiceProcess()
        let token = try server.addUser("alice")
        let directory = server.directory
        let phone = directory.path("phone.sqlite3")
        let records = (1...1_500).map { #"{"id":\#($0),"photoUrl":"https://p/\#($0).jpg","category":"和食","dishName":"料理 \#($0)","shopName":"店","introduction":"紹介"}"# }
        let file = directory.path("many.json")
        #expect(TestFile.create(atPath: file, contents: Data(("[" + records.joined(separator: ",") + "]").utf8)))
        #expect(try archive(["import", file], database: phone, in: directory).status == 0)
        let piped = try archive(["sync", "--server", server.url, "--token-stdin"], database: phone, in: directory, input: .pipe(Data((token + "\n").utf8)))
        #expect(piped.status == 0 && !piped.stderr.contains("sending"), "\(piped.stderr)")

        let laptop = directory.path("laptop.sqlite3")
        let laptopToken = try server.addDevice("laptop", of: "alice")
        try Data((laptopToken + "\n").utf8).write(to: URL(fileURLWithPath: laptop + ".sync-token"))
        chmod(laptop + ".sync-token", 0o600)
        var environment = ServiceProcess.environment(directory)
        environment["NO_COLOR"] = "1"
        let command = [BuiltProduct.url(named: "archive").path, "sync", "--database", laptop, "--server", server.url].joined(separator: " ")
        let onTerminal = try ChildProcess.run(script, ["-q", "-e", "-c", command, "/dev/null"], environment: environment, timeout: .seconds(120))
        #expect(onTerminal.status == 0, "\(onTerminal.stdout)")
        #expect(onTerminal.stdout.contains("receiving") && onTerminal.stdout.contains("of 1500") && onTerminal.stdout.contains("100%"), "\(onTerminal.stdout.suffix(400))")
        #expect(onTerminal.stdout.contains("received 1500 change(s)"), "\(onTerminal.stdout.suffix(400))")
    }
}
