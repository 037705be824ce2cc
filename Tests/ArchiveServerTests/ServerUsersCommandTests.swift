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

    private func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ChildProcess.Result {
        let environment = ServiceProcess.environment(directory).merging(extra) { $1 }
        return try ChildProcess.run(ServiceProcess.executable.path, arguments, environment: environment, timeout: .seconds(60))
    }

    @Test(arguments: ServiceBackend.allCases)
    func addPrintsA256BitTokenOnceAndListShowsTheUser(backend: ServiceBackend) throws {
        let storage = try backend.newStorage(in: directory)
        let added = try run(["users", "add", "alice"] + storage)
        #expect(added.status == 0, "\(added.stderr)")
        let token = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("fa_"))
        #expect(token.count == 3 + 43, "32 random bytes in base64url: \(token)")
        #expect(added.stderr.contains("shown this once"))
        // Storage options before the subcommand work as well as after.
        let listed = try run(storage + ["users", "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let users = (try listed.json() as? [String: Any])?["users"] as? [[String: Any]]
        #expect(users?.first?["name"] as? String == "alice")
        #expect(users?.first?["hasToken"] as? Bool == true)
        #expect(!listed.stdout.contains(token))
        // A second token for another user differs.
        let bob = try run(["users", "add", "bob"] + storage).stdout
        #expect(!bob.contains(token))
    }

    @Test(arguments: ServiceBackend.allCases)
    func mistakesAreClearErrors(backend: ServiceBackend) throws {
        let storage = try backend.newStorage(in: directory)
        #expect(try run(["users", "add", "alice"] + storage).status == 0)
        let again = try run(["users", "add", "alice"] + storage)
        #expect(again.status != 0)
        #expect(again.stderr.contains("exists already"), "\(again.stderr)")
        // The advice harms no other device: a token of the new device's own.
        #expect(again.stderr.contains("devices add alice LABEL") && again.stderr.contains("would stop every token"), "\(again.stderr)")
        for name in ["", "a b", "ä", String(repeating: "x", count: 65), "../x", "..."] {
            let invalid = try run(["users", "add", name] + storage)
            // A usage error, as every other (before: 1, as for a failure).
            #expect(invalid.status == 64, "\(name): \(invalid.status)")
            #expect(invalid.stderr.contains("invalid user name"), "\(name): \(invalid.stderr)")
        }
        let badLabel = try run(["devices", "add", "alice", "a b"] + storage)
        #expect(badLabel.status == 64 && badLabel.stderr.contains("invalid device label"), "\(badLabel.stderr)")
        let missing = try run(["users", "revoke", "nobody"] + storage)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no user named nobody"))
        // A listing reads only: on a path with no database it says so and creates nothing
        // (before: `users list` made an empty server.sqlite3 there).
        let nowhere = directory.path("never-made.sqlite3")
        for listing in [["users", "list"], ["devices", "list", "alice"]] {
            let listed = try run(listing + ["--database", nowhere])
            #expect(listed.status == 1 && listed.stderr.contains("no database at \(nowhere); nothing was created"), "\(listing): \(listed.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: nowhere), "a listing created the database")
        let noName = try run(["users", "add"] + storage)
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

    /// `--postgres` mistakes are said at once, with what PostgreSQL reported; a database
    /// migrated by a newer server, or whose migration was changed, is refused.
    @Test func postgresMistakesAreClearErrors() throws {
        let postgres = try TestPostgres.server()
        let url = try postgres.newDatabase()
        let cases: [([String], String)] = [
            (["--postgres", "mysql://x/y"], "not a postgres:// URL"),
            (["--postgres", "postgres://archive@/"], "names no database"),
            (["--postgres", "postgres://archive@/x?host=/x&color=blue"], "unknown parameter color"),
            (["--postgres", "postgres://archive:secret@127.0.0.1:1/x?sslmode=disable"], "the connection was refused"),
            (["--postgres", "postgres://archive@/x?host=\(directory.url.path)"], "no such file or directory"),
            (["--postgres", url.replacingOccurrences(of: "@/t", with: "@/missing_t")], "does not exist"),
            (["--postgres", url, "--database", directory.path("s.sqlite3")], "give one"),
        ]
        for (storage, message) in cases {
            let result = try run(["users", "list"] + storage)
            #expect(result.status != 0, "\(storage)")
            #expect(result.stderr.contains(message), "\(storage): \(result.stderr)")
            #expect(!result.stderr.contains("secret"), "a password in an error: \(result.stderr)")
        }
        // Both variables set, no flag: refused rather than guessed; a flag settles it.
        let both = ["ARCHIVE_SERVER_DATABASE": directory.path("env.sqlite3"), "ARCHIVE_SERVER_POSTGRES": url]
        let ambiguous = try run(["users", "list"], environment: both)
        #expect(ambiguous.status != 0 && ambiguous.stderr.contains("name two places"), "\(ambiguous.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("env.sqlite3")))
        let added = try run(["users", "add", "alice", "--postgres", url])
        #expect(added.status == 0 && added.stdout.hasPrefix("fa_"), "\(added.stderr)")
        // A flag settles it: --postgres lists PostgreSQL's users (alice), --database the file's
        // (none: it reads the file, which is not there, and makes none).
        let listed = try run(["users", "list", "--json", "--postgres", url], environment: both)
        let names = ((try? listed.json() as? [String: Any])?["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(listed.status == 0 && names == ["alice"], "\(listed.stdout) \(listed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("env.sqlite3")), "the variable's SQLite file was opened")
        let file = try run(["users", "list", "--json", "--database", directory.path("env.sqlite3")], environment: both)
        #expect(file.status == 1 && file.stderr.contains("no database at \(directory.path("env.sqlite3"))"), "\(file.stdout) \(file.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("env.sqlite3")))
        _ = try postgres.query("INSERT INTO archive_server_migrations (version, name, checksum) VALUES (999, 'future', 'x')", in: url)
        let newer = try run(["users", "list", "--postgres", url])
        #expect(newer.status != 0 && newer.stderr.contains("migration 999"), "\(newer.stderr)")
        _ = try postgres.query("DELETE FROM archive_server_migrations WHERE version = 999; UPDATE archive_server_migrations SET checksum = 'changed' WHERE version = 1", in: url)
        let changed = try run(["users", "list", "--postgres", url])
        #expect(changed.status != 0 && changed.stderr.contains("applied migration 1 (") && changed.stderr.contains("with different SQL"), "\(changed.stderr)")
    }

    /// A secret printed into a full disk (`> /dev/full`) was lost while the command exited 0
    /// (before: `users add` said nothing and succeeded, the token's only copy gone). Each
    /// command that shows a secret fails, saying what was made and how to get another; a
    /// listing that cannot be written fails too.
    @Test(arguments: ServiceBackend.allCases)
    func aSecretThatCannotBeShownFailsTheCommand(backend: ServiceBackend) throws {
        let storage = try backend.newStorage(in: directory)
        func intoFullDisk(_ arguments: [String]) throws -> ChildProcess.Result {
            try ChildProcess.run(
                "/bin/sh", ["-c", #"exec "$0" "$@" > /dev/full"#, ServiceProcess.executable.path] + arguments + storage,
                environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        }
        let added = try intoFullDisk(["users", "add", "alice"])
        #expect(added.status == 1, "\(added.stderr)")
        #expect(added.stderr.contains("added alice, but the new token of its device first could not be shown") && added.stderr.contains("users token alice"), "\(added.stderr)")
        #expect(!added.stderr.contains("shown this once"), "\(added.stderr)")
        let device = try intoFullDisk(["devices", "add", "alice", "tablet"])
        #expect(device.status == 1 && device.stderr.contains("devices revoke alice tablet, then add it again"), "\(device.stderr)")
        let link = try intoFullDisk(["devices", "link", "alice", "web", "--public-url", "https://archive.example.com"])
        #expect(link.status == 1 && link.stderr.contains("devices link alice web again"), "\(link.stderr)")
        let listed = try intoFullDisk(["users", "list"])
        #expect(listed.status == 1 && listed.stderr.contains("cannot write to standard output: No space left on device"), "\(listed.stderr)")
        // The user was added all the same: its new token works.
        let token = try run(["users", "token", "alice"] + storage)
        #expect(token.status == 0 && token.stdout.hasPrefix("fa_"), "\(token.stderr)")
    }

    /// The PostgreSQL password need not be on the command line (where every local user reads
    /// it in `/proc/PID/cmdline`): a URL without one takes it from `PGPASSWORD` or a password
    /// file as libpq does; a password file others can read is ignored, saying so; one in
    /// `--postgres` works but is warned of. On a server of the test's own whose role `keeper`
    /// must give its password.
    @Test func thePostgresPasswordStaysOutOfTheCommandLine() throws {
        let postgres = try TestPostgres.dedicated()
        let url = try postgres.addPasswordUser("keeper", password: "s3cret:pw")
        func list(_ arguments: [String], _ environment: [String: String]) throws -> ChildProcess.Result {
            try run(["users", "list"] + arguments, environment: environment)
        }
        // No password anywhere: refused by PostgreSQL, said in one sentence.
        let none = try list(["--postgres", url], ["HOME": directory.url.path])
        #expect(none.status != 0, "\(none.stdout)")
        // PGPASSWORD.
        let fromEnvironment = try list(["--postgres", url], ["PGPASSWORD": "s3cret:pw"])
        #expect(fromEnvironment.status == 0 && !fromEnvironment.stderr.contains("password"), "\(fromEnvironment.stderr)")
        // A password file: the socket's directory as the host, a `:` escaped in the password.
        let passfile = directory.path("pgpass")
        let line = "\(postgres.socketDirectory.replacingOccurrences(of: ":", with: "\\:")):5432:keeper:keeper:s3cret\\:pw\n"
        #expect(TestFile.create(atPath: passfile, contents: Data(("# comment\n*:*:other:other:nope\n" + line).utf8)))
        #expect(chmod(passfile, 0o600) == 0)
        let fromFile = try list(["--postgres", url], ["PGPASSFILE": passfile])
        #expect(fromFile.status == 0 && !fromFile.stderr.contains("password"), "\(fromFile.stderr)")
        // `localhost` stands for a socket too, as in libpq; ~/.pgpass is the default.
        let home = directory.path("home")
        #expect(mkdir(home, 0o700) == 0)
        #expect(TestFile.create(atPath: home + "/.pgpass", contents: Data("localhost:*:*:keeper:s3cret\\:pw\n".utf8)) && chmod(home + "/.pgpass", 0o600) == 0)
        #expect(try list(["--postgres", url], ["HOME": home]).status == 0)
        // Readable by others: ignored, saying so, and refused by PostgreSQL without it.
        #expect(chmod(passfile, 0o644) == 0)
        let loose = try list(["--postgres", url], ["PGPASSFILE": passfile])
        #expect(loose.status != 0 && loose.stderr.contains("can be read by other users (mode 644); it was ignored, as libpq ignores it: chmod 600"), "\(loose.stderr)")
        // In ARCHIVE_SERVER_POSTGRES, with the password: no warning (the environment is the process's own).
        let inVariable = try list([], ["ARCHIVE_SERVER_POSTGRES": url.replacingOccurrences(of: "keeper@", with: "keeper:s3cret%3Apw@")])
        #expect(inVariable.status == 0 && !inVariable.stderr.contains("password"), "\(inVariable.stderr)")
        // On the command line: works, warned of, the password never printed.
        let inArgv = try list(["--postgres", url.replacingOccurrences(of: "keeper@", with: "keeper:s3cret%3Apw@")], [:])
        #expect(inArgv.status == 0, "\(inArgv.stderr)")
        #expect(inArgv.stderr.contains("warning: the PostgreSQL password is on the command line (--postgres)") && !inArgv.stderr.contains("s3cret"), "\(inArgv.stderr)")
    }
}
