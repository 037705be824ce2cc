import Foundation
import TestSupport
import Testing

/// `archive-server users …` on the real binary.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServerUsersCommandTests {
    let directory: TemporaryDirectory
    let database: String

    init() throws {
        directory = try TemporaryDirectory()
        database = directory.path("server.sqlite3")
    }

    private func run(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(ServiceProcess.executable.path, arguments, environment: ServiceProcess.environment(directory), timeout: .seconds(60))
    }

    @Test func addPrintsA256BitTokenOnceAndListShowsTheUser() throws {
        let added = try run(["users", "add", "alice", "--database", database])
        #expect(added.status == 0, "\(added.stderr)")
        let token = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("fa_"))
        #expect(token.count == 3 + 43, "32 random bytes in base64url: \(token)")
        #expect(added.stderr.contains("shown this once"))
        // Storage options before the subcommand work as well as after.
        let listed = try run(["--database", database, "users", "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let users = (try listed.json() as? [String: Any])?["users"] as? [[String: Any]]
        #expect(users?.first?["name"] as? String == "alice")
        #expect(users?.first?["hasToken"] as? Bool == true)
        #expect(!listed.stdout.contains(token))
        // A second token for another user differs.
        let bob = try run(["users", "add", "bob", "--database", database]).stdout
        #expect(!bob.contains(token))
    }

    @Test func mistakesAreClearErrors() throws {
        #expect(try run(["users", "add", "alice", "--database", database]).status == 0)
        let again = try run(["users", "add", "alice", "--database", database])
        #expect(again.status != 0)
        #expect(again.stderr.contains("exists already"), "\(again.stderr)")
        for name in ["", "a b", "ä", String(repeating: "x", count: 65), "../x"] {
            let invalid = try run(["users", "add", name, "--database", database])
            #expect(invalid.status != 0, "\(name)")
            #expect(invalid.stderr.contains("invalid user name"), "\(name): \(invalid.stderr)")
        }
        let missing = try run(["users", "revoke", "nobody", "--database", database])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no user named nobody"))
        let noName = try run(["users", "add", "--database", database])
        #expect(noName.status != 0)
        #expect(noName.stderr.contains("needs a user's name"))
    }

    @Test func anArchiveFavoritesFileIsNotTakenForTheServicesDatabase() throws {
        let favorites = directory.path("favorites.sqlite3")
        let archive = try ChildProcess.run(BuiltProduct.url(named: "archive").path, ["add", "17", "--database", favorites], environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        #expect(archive.status == 0, "\(archive.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: favorites))
        let refused = try run(["users", "add", "alice", "--database", favorites])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("cannot open the service's database"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: favorites)) == before, "the favorites file was changed")
        let directoryRefused = try run(["users", "list", "--database", directory.url.path])
        #expect(directoryRefused.status != 0)
        #expect(directoryRefused.stderr.contains("a directory"), "\(directoryRefused.stderr)")
    }
}
