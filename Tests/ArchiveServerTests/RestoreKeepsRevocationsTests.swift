import ArchiveStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SQLite
import TestSupport
import Testing

/// A restore undoes no revocation (issue 73, §2), on the real binaries and both backends: a
/// backup taken while a lost phone's token, a browser's session, an unused sign-in link and
/// a user were all good; each ended after it; the backup put back with `archive-server
/// restore` (SQLite: over the database; PostgreSQL: `pg_restore` into a new database, then
/// `restore --from` the old one). Every one stays ended, the devices that were not revoked
/// sync on, and no user ID is given twice. (Seen red with `restore` keeping no record: the
/// lost phone pulled 200 again, the signed-out browser was signed in, the used link signed a
/// second browser in, mallory's token worked, and the next user got removed trudy's ID.)
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct RestoreKeepsRevocationsTests {
    private func userIDs(_ server: ServiceProcess) throws -> [String: Int] {
        var ids: [String: Int] = [:]
        switch server.backend {
        case .sqlite:
            let database = try Database(path: server.database)
            for (name, id) in try database.fetchAll("SELECT name, id FROM users", row: { (try $0.column(String.self, at: 0), try $0.int(at: 1)) }) { ids[name] = id }
        case .postgres:
            for line in try TestPostgres.server().query("SELECT name || ' ' || id FROM users", in: server.database).split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.count == 2, let id = Int(parts[1]) { ids[String(parts[0])] = id }
            }
        }
        return ids
    }

    @Test(arguments: ServiceBackend.allCases)
    func aRestoreKeepsEveryRevocationMadeSinceTheBackup(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let directory = server.directory
        _ = try server.addUser("alice")
        let lost = try server.addDevice("lost", of: "alice"), kept = try server.addDevice("kept", of: "alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "browser")
        let link = WebClient.secret(of: try WebClient.link(server, user: "alice", label: "later"))
        let mallory = try server.addUser("mallory")
        let malloryID = try #require(try userIDs(server)["mallory"])
        let phone = Changes.device(0x51), laptop = Changes.device(0x52)
        #expect(try server.pull(device: phone, token: lost).0.status == 200)
        #expect(try server.pull(device: laptop, token: kept).0.status == 200)

        let backup = directory.path("backup.sqlite3"), dump = directory.path("backup.dump")
        switch backend {
        case .sqlite:
            let written = try server.admin(["backup", backup])
            #expect(written.status == 0, "\(written.stderr)")
        case .postgres:
            try TestPostgres.server().dump(server.database, to: dump)
        }

        // After the backup: the phone is lost, the browser signs out, the link is used, mallory goes.
        #expect(try server.admin(["devices", "revoke", "alice", "lost"]).status == 0)
        #expect(try browser.post("/web/signout", "csrf=\(browser.csrf)").status == 303)
        #expect(try WebClient.signIn(server, secret: link).status == 303)
        #expect(try server.admin(["users", "remove", "mallory"]).status == 0)
        // A user the backup never knew, added and removed since: its ID is not given again.
        _ = try server.addUser("trudy")
        let trudyID = try #require(try userIDs(server)["trudy"])
        #expect(try server.admin(["users", "remove", "trudy"]).status == 0)
        #expect(try server.pull(device: phone, token: lost).0.status == 401)

        // A restore refuses to run under the running service (SQLite: it would replace its file).
        if backend == .sqlite {
            let refused = try server.admin(["restore", backup])
            #expect(refused.status != 0 && refused.stderr.contains("a restore needs the service stopped"), "\(refused.stderr)")
        }
        _ = server.stop()

        let restoredDatabase: String
        let restore: ChildProcess.Result
        switch backend {
        case .sqlite:
            restoredDatabase = server.database
            restore = try ChildProcess.run(
                ServiceProcess.executable.path, ["--database", server.database, "restore", backup, "--json"],
                environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        case .postgres:
            restoredDatabase = try TestPostgres.server().restore(dump)
            let unnamed = try ChildProcess.run(
                ServiceProcess.executable.path, ["--postgres", restoredDatabase, "restore"], environment: ServiceProcess.environment(directory), timeout: .seconds(60))
            #expect(unnamed.status != 0 && unnamed.stderr.contains("--from URL"), "\(unnamed.stderr)")
            restore = try ChildProcess.run(
                ServiceProcess.executable.path, ["--postgres", restoredDatabase, "restore", "--from", server.database, "--json"],
                environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        }
        #expect(restore.status == 0, "\(restore.stderr)")
        let said = try restore.json() as? [String: Any]
        // The lost token, the browser's session, the link and mallory's token; mallory.
        #expect(said?["credentialsRevoked"] as? Int == 4 && said?["usersRemoved"] as? Int == 1 && said?["users"] as? Int == 1, "\(restore.stdout)")

        let restored = try ServiceProcess(backend, database: restoredDatabase, directory: directory)
        #expect(try restored.pull(device: phone, token: lost).0.status == 401, "the lost phone's token pulls again")
        #expect(try restored.pull(device: laptop, token: kept).0.status == 200, "a device not revoked is locked out")
        #expect(try restored.call("GET", "/", headers: ["Cookie: \(browser.cookie)"]).text.contains("Not signed in"), "the signed-out browser is signed in again")
        #expect(try WebClient.signIn(restored, secret: link).status != 303, "the used link signs a second browser in")
        #expect(try restored.pull(device: Changes.device(0x53), token: mallory).0.status == 401, "the removed user's token works")
        #expect(try userIDs(restored)["mallory"] == nil)
        _ = try restored.addUser("eve")
        let eve = try #require(try userIDs(restored)["eve"])
        #expect(eve > malloryID && eve > trudyID, "eve got ID \(eve), at or below removed mallory's \(malloryID) or trudy's \(trudyID)")
    }

    /// What `restore` refuses, the database left as it was: no backup, a backup that is not a
    /// file or not a database of the service's, the database itself.
    @Test func aRestoreRefusesWhatIsNoBackup() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("server.sqlite3")
        func restore(_ arguments: [String]) throws -> ChildProcess.Result {
            try ChildProcess.run(ServiceProcess.executable.path, ["--database", database, "restore"] + arguments, environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        }
        let token = try ChildProcess.run(ServiceProcess.executable.path, ["--database", database, "users", "add", "alice"], environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        #expect(token.status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let notADatabase = directory.path("notes.txt")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: notADatabase))
        let client = directory.path("client.sqlite3")
        #expect(try ServiceProcess.archive(["add", "1"], database: client, in: directory).status == 0)
        for (arguments, says) in [
            ([], "name the backup"), ([directory.path("missing.sqlite3")], "no such file"), ([directory.path("")], "not a regular file"),
            ([notADatabase], "could not be read as a SQLite database"), ([client], "not a database of archive-server's"),
            ([database], "the service's database itself"), ([database, "--from", "postgres://x@/y"], "PostgreSQL's"),
        ] {
            let result = try restore(arguments)
            #expect(result.status != 0 && result.stderr.contains(says), "\(arguments): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path(".")).filter { $0.contains("restoring") }
        #expect(left.isEmpty, "\(left)")
    }
}
