import Foundation
import TestSupport
import Testing

/// Every way the first connection to PostgreSQL fails is said in words a person can act on,
/// on the real `archive-server` (an admin command and `serve`): never PostgresNIO's case
/// name (`sslUnsupported`, `authMechanismRequiresPassword`), and "try again" only where a
/// retry helps (before: a wrong port said "nothing was acknowledged: send the same request
/// again shortly"). PostgreSQL's own refusals on a server of the test's own; a server
/// without TLS, and a port that closes every connection, played by a small listener.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct PostgresConnectErrorTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// `archive-server ARGUMENTS` with `extra` in its environment (no PGPASSWORD of the caller's).
    private func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ChildProcess.Result {
        var environment = ServiceProcess.environment(directory)
        environment["PGPASSWORD"] = nil
        environment["PGPASSFILE"] = nil
        return try ChildProcess.run(ServiceProcess.executable.path, arguments, environment: environment.merging(extra) { $1 }, timeout: .seconds(60))
    }

    /// A TCP listener on 127.0.0.1 that, for each connection, reads the first message and
    /// answers `N` to an SSLRequest (as a PostgreSQL without TLS does) or closes at once.
    private func listener(answeringSSLRequests: Bool) throws -> (ChildProcess, port: String) {
        let script = """
            import socket, sys
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
            print(s.getsockname()[1], flush=True)
            while True:
                c, _ = s.accept(); data = c.recv(4096)
                if sys.argv[1] == "nossl" and data[4:8] == bytes([4, 210, 22, 47]): c.sendall(b"N")
                c.close()
            """
        let child = try ChildProcess("/usr/bin/python3", ["-c", script, answeringSSLRequests ? "nossl" : "close"], streamingStdout: true)
        let port = try #require(child.nextLine()?.trimmingCharacters(in: .whitespacesAndNewlines))
        return (child, port)
    }

    /// PostgreSQL reached at start, then the connection migrating lost under its statement
    /// (the CI run where a balancer's checks took the primary out for a moment): the start
    /// migrates again, says so, and serves; before, it ended with "serverClosedConnection".
    @Test func aConnectionLostWhileMigratingIsTriedAgainAtStart() throws {
        let postgres = try TestPostgres.server()
        let direct = try postgres.newDatabase()
        let relay = try SeveringRelay(to: postgres.socketDirectory, severingFirstSending: "archive_server_migrations")
        let url = try relay.url(of: direct)
        let server = try ServiceProcess(.postgres, database: url, directory: directory)
        #expect(relay.severed(), "the relay never cut the migration's connection")
        #expect(try server.call("GET", "/health").status == 200)
        let token = try server.addUser("alice")
        #expect(try server.pull(device: Changes.device(1), token: token).0.status == 200)
        let stopped = try #require(server.stop())
        #expect(stopped.stderr.contains("migrating again in"), "\(stopped.stderr.suffix(2_000))")
        #expect(try postgres.query("SELECT count(*) FROM archive_server_migrations", in: direct) != "0")
    }

    @Test func eachConnectionFailureIsSaidWithWhatToChange() throws {
        let postgres = try TestPostgres.dedicated()
        let url = try postgres.addPasswordUser("keeper", password: "s3cret")
        let socket = postgres.socketDirectory
        let (noTLS, noTLSPort) = try listener(answeringSSLRequests: true)
        let (closing, closingPort) = try listener(answeringSSLRequests: false)
        defer {
            for child in [noTLS, closing] {
                child.signal(SIGKILL)
                child.wait()
            }
        }
        let cases: [(url: String, environment: [String: String], says: [String])] = [
            (url, [:], ["PostgreSQL asks for user keeper's password, and none was given; give it in PGPASSWORD, in a password file"]),
            (url, ["PGPASSWORD": "wrong"], ["password authentication failed for user \"keeper\" (SQLSTATE 28P01); check the user and its password"]),
            ("postgres://keeper@/nodb?host=\(socket)", ["PGPASSWORD": "s3cret"], ["database \"nodb\" does not exist (SQLSTATE 3D000); create it, owned by the service's role: runuser -u postgres -- createdb -O keeper nodb"]),
            ("postgres://ghost@/ghost?host=\(socket)", [:], ["role \"ghost\" does not exist (SQLSTATE 28000); create the role: runuser -u postgres -- createuser --pwprompt ghost"]),
            ("postgres://keeper@/keeper?host=/nonexistent", [:], ["the socket /nonexistent/.s.PGSQL.5432: no such file or directory", "check that PostgreSQL runs and listens there"]),
            ("postgres://keeper@127.0.0.1:\(try LoopbackSocket.freePort())/keeper", [:], ["the connection was refused (nothing listens at that address and port); check that PostgreSQL runs"]),
            ("postgres://keeper@127.0.0.1:\(noTLSPort)/keeper?sslmode=require", [:], ["PostgreSQL at 127.0.0.1:\(noTLSPort) does not offer TLS, and the URL requires it (sslmode=require); turn TLS on in postgresql.conf"]),
            ("postgres://keeper@127.0.0.1:\(closingPort)/keeper?sslmode=disable", [:], ["127.0.0.1:\(closingPort) closed the connection before PostgreSQL's start-up was done; check that the URL's port is PostgreSQL's"]),
        ]
        for (url, environment, says) in cases {
            let listed = try run(["users", "list", "--postgres", url], environment: environment)
            let message = listed.stderr
            #expect(listed.status == 1, "\(url): \(listed.stdout)")
            #expect(message.contains("Error: cannot connect to PostgreSQL (\(url)): "), "\(url): \(message)")
            for text in says { #expect(message.contains(text), "\(url): \(message)") }
            for libraryWord in ["sslUnsupported", "authMechanism", "connectionError", "PSQLError", "send the same request again"] {
                #expect(!message.contains(libraryWord), "\(url): \(message)")
            }
        }
        // A PostgreSQL that would acknowledge a commit before flushing it is refused at start.
        _ = try postgres.query("ALTER DATABASE keeper SET synchronous_commit = off", in: url)
        let unflushed = try run(["users", "list", "--postgres", url], environment: ["PGPASSWORD": "s3cret"])
        #expect(unflushed.status == 1 && unflushed.stderr.contains("runs the service's sessions with synchronous_commit = off") && unflushed.stderr.contains("ALTER ROLE keeper SET synchronous_commit = on"), "\(unflushed.stderr)")
        // `serve` says it the same way, and never begins to listen.
        let served = try run(["--port", "0", "--postgres", "postgres://keeper@127.0.0.1:\(noTLSPort)/keeper?sslmode=require"])
        #expect(served.status == 1 && served.stdout.isEmpty, "\(served.stdout)")
        #expect(served.stderr.contains("Error: cannot connect to PostgreSQL (postgres://keeper@127.0.0.1:\(noTLSPort)/keeper?sslmode=require): PostgreSQL at"), "\(served.stderr)")
    }
}
