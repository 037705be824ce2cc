import Foundation
import TestSupport
import Testing
import X509

/// `archive-server --tls-certificate --tls-key` and `archive sync --server https://…`, real
/// handshakes between the real binaries with a certificate authority made for the test
/// (``TestAuthority``): a good chain syncs; a certificate for another name, of an unknown
/// authority, or expired is refused in one sentence with nothing synced; SIGHUP serves a
/// renewed pair and keeps the old one when the new is bad; plain HTTP is refused where the
/// token would cross a network.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServiceTLSTests {
    let directory: TemporaryDirectory
    let authority: TestAuthority
    let caFile: String

    init() throws {
        directory = try TemporaryDirectory()
        authority = try TestAuthority("FavoriteArchive test CA")
        caFile = directory.path("ca.pem")
        try authority.write(to: caFile)
    }

    /// A server on HTTPS with the pair at `certificate` and `key`, its log (stderr) in
    /// `server.log`, and a user's token.
    func start(certificate: String, key: String, database: String = "server.sqlite3") throws -> (ServiceProcess, token: String) {
        let log = directory.path("server.log")
        let server = try ServiceProcess(
            .sqlite, arguments: ["--tls-certificate", certificate, "--tls-key", key], database: directory.path(database), directory: directory,
            launcher: ["/bin/sh", "-c", "log=$1; shift; exec \"$@\" 2>>\"$log\"", "sh", log])
        let token = try server.addUser("ann")
        return (server, token)
    }

    /// `archive sync --server URL` for a database of the test's, with `token`; `extra` after.
    func sync(_ url: String, token: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ServiceProcess.archive(
            ["sync", "--server", url] + extra, database: directory.path("phone.sqlite3"), in: directory,
            environment: ["ARCHIVE_SYNC_TOKEN": token].merging(environment) { $1 })
    }

    /// `https://localhost:PORT` for the server's URL (`https://127.0.0.1:PORT`).
    func localhost(_ server: ServiceProcess) -> String {
        server.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
    }

    /// Waits until the server's log holds `text` (inotify, no polling loop).
    func waitForLog(_ text: String, events: FileEvents) -> Bool {
        while true {
            if (try? String(contentsOfFile: directory.path("server.log"), encoding: .utf8))?.contains(text) == true { return true }
            guard events.wait(for: "server.log") else { return false }
        }
    }

    @Test func aGoodChainSyncsByNameAndByAddressWithTheCAFileGivenEitherWay() throws {
        try authority.issue(names: ["localhost"], certificate: directory.path("server.pem"), key: directory.path("server.key"))
        let (server, token) = try start(certificate: directory.path("server.pem"), key: directory.path("server.key"))
        #expect(server.url.hasPrefix("https://"))
        _ = try ServiceProcess.archive(["add", "21"], database: directory.path("phone.sqlite3"), in: directory)
        let byName = try sync(localhost(server), token: token, ["--ca-file", caFile])
        #expect(byName.status == 0, "\(byName.stderr)")
        #expect(byName.stdout.contains("sent 1"), "\(byName.stdout)")
        // The address the certificate also names; the CA file from the environment.
        let byAddress = try sync(server.url, token: token, environment: ["ARCHIVE_SYNC_CA_FILE": caFile])
        #expect(byAddress.status == 0, "\(byAddress.stderr)")
        // http:// to the HTTPS port: the message says it may speak HTTPS (before: only "the
        // server closed the connection without answering").
        let plain = try sync(server.url.replacingOccurrences(of: "https://", with: "http://"), token: token)
        #expect(plain.status == 1 && plain.stderr.contains("it may speak HTTPS: try https://127.0.0.1:"), "\(plain.stderr)")
    }

    /// `archive ARGUMENTS` run in `workingDirectory`, the phone's database, `token` in the environment.
    func archive(in workingDirectory: String, _ arguments: [String], token: String) throws -> ChildProcess.Result {
        var environment = ServiceProcess.environment(directory)
        environment["ARCHIVE_SYNC_TOKEN"] = token
        environment["ARCHIVE_SYNC_CA_FILE"] = nil
        return try ChildProcess.run(
            "/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", workingDirectory, BuiltProduct.url(named: "archive").path]
                + arguments + ["--database", directory.path("phone.sqlite3")],
            environment: environment)
    }

    /// The CA file of `archive sync --server URL --ca-file PEM` is kept with the server (its
    /// path made absolute), so `archive sync` alone syncs again from any directory and
    /// `--status` shows it (before: "not signed by the system's trusted authorities"); it
    /// is trusted only for that server, and a sync with another server forgets it.
    @Test func theCAFileIsKeptWithTheServerForTheNextSync() throws {
        try authority.issue(names: ["localhost"], certificate: directory.path("server.pem"), key: directory.path("server.key"))
        let (server, token) = try start(certificate: directory.path("server.pem"), key: directory.path("server.key"))
        let elsewhere = try TemporaryDirectory()
        let first = try archive(in: directory.url.path, ["sync", "--server", localhost(server), "--ca-file", "ca.pem"], token: token)
        #expect(first.status == 0, "\(first.stderr)")
        _ = try ServiceProcess.archive(["add", "21"], database: directory.path("phone.sqlite3"), in: directory)
        let again = try archive(in: elsewhere.url.path, ["sync"], token: token)
        #expect(again.status == 0 && again.stdout.contains("sent 1"), "\(again.stdout)\(again.stderr)")
        let status = try archive(in: elsewhere.url.path, ["sync", "--status"], token: token)
        #expect(status.stdout.contains("ca file: \(caFile)\n") && status.stdout.contains("token: accepted"), "\(status.stdout)")
        let json = try archive(in: elsewhere.url.path, ["sync", "--status", "--json"], token: token)
        #expect((try json.json() as? [String: Any])?["caFile"] as? String == caFile, "\(json.stdout)")
        // A CA file moved away is named with where it was kept.
        try FileManager.default.moveItem(atPath: caFile, toPath: directory.path("moved.pem"))
        let moved = try archive(in: elsewhere.url.path, ["sync"], token: token)
        #expect(moved.status == 1 && moved.stderr.contains("cannot read the certificate authorities in \(caFile) (--ca-file, ARCHIVE_SYNC_CA_FILE or the syncCAFile setting): no such file"), "\(moved.stderr)")
        try FileManager.default.moveItem(atPath: directory.path("moved.pem"), toPath: caFile)
        // Only for the server it was kept with: another URL of the same server is checked
        // against the system's authorities, and a sync with it (CA from the environment) forgets it.
        let other = try archive(in: elsewhere.url.path, ["sync", "--server", server.url], token: token)
        #expect(other.status == 1 && other.stderr.contains("is not signed by the system's trusted authorities"), "\(other.stderr)")
        let moving = try sync(server.url, token: token, environment: ["ARCHIVE_SYNC_CA_FILE": caFile])
        #expect(moving.status == 0, "\(moving.stderr)")
        let forgotten = try archive(in: elsewhere.url.path, ["sync", "--status"], token: token)
        #expect(forgotten.stdout.contains("server: \(server.url)\nca file: none (the system's trusted authorities)"), "\(forgotten.stdout)")
    }

    @Test func anUnknownAuthorityAWrongNameAndAnExpiredCertificateAreRefusedWithNothingSynced() throws {
        let stranger = try TestAuthority("Someone else's CA")
        try stranger.issue(names: ["localhost"], certificate: directory.path("stranger.pem"), key: directory.path("stranger.key"))
        try authority.issue(names: ["other.example"], withLoopbackAddress: false, certificate: directory.path("other.pem"), key: directory.path("other.key"))
        try authority.issue(
            names: ["localhost"], notBefore: Date() - 86_400 * 10, notAfter: Date() - 86_400,
            certificate: directory.path("expired.pem"), key: directory.path("expired.key"))
        _ = try ServiceProcess.archive(["add", "21"], database: directory.path("phone.sqlite3"), in: directory)
        let cases: [(pair: String, caFile: [String], says: String)] = [
            ("stranger", ["--ca-file", caFile], "is not signed by the authorities of \(caFile)"),
            ("stranger", [], "is not signed by the system's trusted authorities: for a certificate of your own, pass --ca-file"),
            ("other", ["--ca-file", caFile], "is not issued for localhost"),
            ("expired", ["--ca-file", caFile], "expired on"),
            // Signed by the CA, but for TLS clients only (before: "not signed by the authorities of ca.pem").
            ("client", ["--ca-file", caFile], "is not a server's certificate (its extended key usage allows clientAuth, not serverAuth)"),
        ]
        try authority.issue(names: ["localhost"], usage: [.clientAuth], certificate: directory.path("client.pem"), key: directory.path("client.key"))
        for (pair, caArguments, says) in cases {
            // archive-server refuses to serve an expired certificate (anExpiredCertificateStopsTheStart):
            // OpenSSL's own server serves it to the client.
            if pair == "expired" {
                let openssl = try ChildProcess(
                    "/usr/bin/openssl", ["s_server", "-accept", "127.0.0.1:0", "-cert", directory.path("expired.pem"), "-key", directory.path("expired.key"), "-www"],
                    input: .pipe(Data()), streamingStdout: true)
                defer { openssl.signal(SIGKILL); _ = openssl.wait() }
                var accepted: String?
                while let line = openssl.nextLine() {
                    if line.hasPrefix("ACCEPT 127.0.0.1:") { accepted = String(line.dropFirst("ACCEPT 127.0.0.1:".count)).trimmingCharacters(in: .whitespaces); break }
                }
                let port = try #require(accepted, "openssl s_server did not listen")
                let refused = try sync("https://localhost:\(port)", token: "fa_" + String(repeating: "x", count: 43), caArguments)
                #expect(refused.status == 1, "\(pair): \(refused.stdout)")
                let message = refused.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(message.contains("certificate was refused") && message.contains(says) && message.contains("nothing was synced"), "\(pair): \(message)")
                continue
            }
            let (server, token) = try start(certificate: directory.path("\(pair).pem"), key: directory.path("\(pair).key"), database: "\(pair)-\(caArguments.count).sqlite3")
            let refused = try sync(localhost(server), token: token, caArguments)
            #expect(refused.status == 1, "\(pair): \(refused.stdout)")
            let message = refused.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(message.contains("certificate was refused") && message.contains(says) && message.contains("nothing was synced"), "\(pair): \(message)")
            #expect(!message.contains("\n"), "\(pair): not one line: \(message)")
            _ = server.stop()
        }
        // Nothing was synced: the first sync that is let through sends the heart.
        try authority.issue(names: ["localhost"], certificate: directory.path("good.pem"), key: directory.path("good.key"))
        let (server, token) = try start(certificate: directory.path("good.pem"), key: directory.path("good.key"))
        let synced = try sync(localhost(server), token: token, ["--ca-file", caFile])
        #expect(synced.status == 0 && synced.stdout.contains("sent 1"), "\(synced.stdout)\(synced.stderr)")
    }

    @Test func sighupServesARenewedPairAndKeepsTheOldOneWhenTheNewIsBad() throws {
        let certificate = directory.path("server.pem"), key = directory.path("server.key")
        try authority.issue(names: ["localhost"], certificate: certificate, key: key)
        let events = try FileEvents(watching: directory.url.path)
        let (server, token) = try start(certificate: certificate, key: key)
        #expect(try sync(localhost(server), token: token, ["--ca-file", caFile]).status == 0)

        // Renewed by another authority: after SIGHUP, only its CA file is trusted.
        let renewer = try TestAuthority("Renewing CA")
        let renewerFile = directory.path("renewer.pem")
        try renewer.write(to: renewerFile)
        try renewer.issue(names: ["localhost"], certificate: certificate, key: key)
        server.process.signal(SIGHUP)
        #expect(waitForLog("reloaded the TLS certificate", events: events))
        let renewed = try sync(localhost(server), token: token, ["--ca-file", renewerFile])
        #expect(renewed.status == 0, "\(renewed.stderr)")
        #expect(try sync(localhost(server), token: token, ["--ca-file", caFile]).status == 1)

        // A bad pair (the key of another certificate): refused, said in the log, the renewed one kept.
        try authority.issue(names: ["localhost"], certificate: directory.path("unused.pem"), key: key)
        server.process.signal(SIGHUP)
        #expect(waitForLog("kept the TLS certificate served until now", events: events))
        let log = try String(contentsOfFile: directory.path("server.log"), encoding: .utf8)
        #expect(log.contains("is not the key of the certificate \(certificate)"), "\(log)")
        let kept = try sync(localhost(server), token: token, ["--ca-file", renewerFile])
        #expect(kept.status == 0, "\(kept.stderr)")

        // An expired pair (before: loaded, every client then refused): refused, the renewed one kept.
        try renewer.issue(names: ["localhost"], notBefore: Date() - 86_400 * 10, notAfter: Date() - 86_400, certificate: certificate, key: key)
        server.process.signal(SIGHUP)
        #expect(waitForLog("kept the TLS certificate served until now: the TLS certificate \(certificate) expired on", events: events))
        let stillKept = try sync(localhost(server), token: token, ["--ca-file", renewerFile])
        #expect(stillKept.status == 0, "\(stillKept.stderr)")
    }

    @Test("an expired certificate stops the start, saying so; the server never listens")
    func anExpiredCertificateStopsTheStart() throws {
        try authority.issue(
            names: ["localhost"], notBefore: Date() - 86_400 * 10, notAfter: Date() - 86_400,
            certificate: directory.path("expired.pem"), key: directory.path("expired.key"))
        let refused = try ChildProcess.run(
            ServiceProcess.executable.path,
            ["--tls-certificate", directory.path("expired.pem"), "--tls-key", directory.path("expired.key"), "--port", "0", "--database", directory.path("s.sqlite3")],
            environment: ServiceProcess.environment(directory), timeout: Deadline.standard)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stdout.isEmpty, "it listened: \(refused.stdout)")
        #expect(refused.stderr.contains("the TLS certificate \(directory.path("expired.pem")) expired on") && refused.stderr.contains("renew it"), "\(refused.stderr)")
    }

    @Test("TLS 1.2 offers AEAD suites only: a CBC suite is refused, a GCM one and TLS 1.3 served")
    func tls12OffersAEADSuitesOnly() throws {
        try authority.issue(names: ["localhost"], certificate: directory.path("server.pem"), key: directory.path("server.key"))
        let (server, _) = try start(certificate: directory.path("server.pem"), key: directory.path("server.key"))
        let address = String(server.url.dropFirst("https://".count))
        func handshake(_ arguments: [String]) throws -> ChildProcess.Result {
            try ChildProcess.run(
                "/usr/bin/openssl", ["s_client", "-connect", address, "-CAfile", caFile, "-verify_return_error", "-brief"] + arguments,
                input: .pipe(Data()), timeout: Deadline.standard)
        }
        for cbc in ["ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA384", "AES128-SHA"] {
            let refused = try handshake(["-tls1_2", "-cipher", cbc])
            #expect(refused.status != 0, "\(cbc) was accepted: \(refused.stderr)")
        }
        let gcm = try handshake(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256"])
        #expect(gcm.status == 0 && gcm.stderr.contains("GCM"), "\(gcm.stderr)")
        let tls13 = try handshake(["-tls1_3"])
        #expect(tls13.status == 0 && tls13.stderr.contains("TLSv1.3"), "\(tls13.stderr)")
    }

    @Test func plainHTTPIsRefusedWhereTheTokenWouldCrossANetwork() throws {
        // The server: a non-loopback address without TLS is refused, saying how to add it.
        let refused = try ChildProcess.run(
            ServiceProcess.executable.path, ["--host", "0.0.0.0", "--port", "0", "--database", directory.path("s.sqlite3")],
            environment: ServiceProcess.environment(directory), timeout: Deadline.standard)
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("--tls-certificate PEM --tls-key PEM") && refused.stderr.contains("--insecure-http"), "\(refused.stderr)")
        // Only one of the pair, or both ways at once.
        let half = try ChildProcess.run(
            ServiceProcess.executable.path, ["--tls-certificate", caFile, "--database", directory.path("s.sqlite3")],
            environment: ServiceProcess.environment(directory), timeout: Deadline.standard)
        #expect(half.status == 64 && half.stderr.contains("go together"), "\(half.stderr)")
        // --insecure-http (a proxy in front terminates TLS): served.
        let proxied = try ChildProcess(
            ServiceProcess.executable.path, ["--host", "0.0.0.0", "--port", "0", "--insecure-http", "--database", directory.path("s.sqlite3")],
            environment: ServiceProcess.environment(directory), streamingStdout: true)
        #expect(proxied.nextLine()?.hasPrefix("http://0.0.0.0:") == true)
        proxied.signal(SIGTERM)
        #expect(proxied.wait().status == 0)

        // The client: no token over plain http to another machine, refused before connecting
        // (192.0.2.1 is TEST-NET-1: nothing answers there, so a connection would time out).
        // Watched under strace: no connect(2) to that address at all, and the token in no
        // write (the exit status alone passed with the refusal gone: the connection failed).
        func traced(_ extra: [String]) throws -> (trace: SyscallTrace, result: ChildProcess.Result) {
            var environment = ServiceProcess.environment(directory)
            environment["ARCHIVE_SYNC_TOKEN"] = "fa_test"
            environment["NO_COLOR"] = "1"
            return try SyscallTrace.run(
                BuiltProduct.url(named: "archive").path, ["sync", "--database", directory.path("phone.sqlite3"), "--server", "http://192.0.2.1:8080"] + extra,
                environment: environment, in: directory, also: ["connect"])
        }
        let (trace, client) = try traced(["--timeout", "20"])
        #expect(client.status == 1)
        #expect(client.stderr.contains("refusing to send the token to http://192.0.2.1:8080 over plain http"), "\(client.stderr)")
        #expect(!trace.calls.contains { $0.name == "connect" && $0.arguments.contains("192.0.2.1") }, "a connection was tried")
        #expect(trace.calls.allSatisfy { !$0.arguments.contains("fa_test") || $0.arguments.contains("/dev/pts") }, "the token was written")
        // Loopback stays allowed; --allow-insecure-http lets it try (and fail to connect, quickly):
        // the trace sees that connection, so the check above can see one.
        let (allowedTrace, allowed) = try traced(["--allow-insecure-http", "--timeout", "1"])
        #expect(allowed.status == 1 && !allowed.stderr.contains("refusing"), "\(allowed.stderr)")
        #expect(allowedTrace.calls.contains { $0.name == "connect" && $0.arguments.contains("192.0.2.1") }, "no connect in the trace")
    }

    @Test("on the server's own TLS, the page's session cookie is Secure and every answer says Strict-Transport-Security")
    func ownTLSMakesThePageStrict() throws {
        try authority.issue(names: ["localhost"], certificate: directory.path("server.pem"), key: directory.path("server.key"))
        let (server, _) = try start(certificate: directory.path("server.pem"), key: directory.path("server.key"))
        _ = try server.addUser("alice")
        let secret = WebClient.secret(of: try WebClient.link(server, user: "alice", label: "phone"))
        // curl, a client of its own, over a real handshake: the headers of the answer.
        func curl(_ arguments: [String]) throws -> String {
            let result = try ChildProcess.run(
                "/usr/bin/curl", ["-sS", "-o", "/dev/null", "-D", "-", "--cacert", caFile, "--max-time", "60"] + arguments, timeout: Deadline.standard)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.lowercased()
        }
        let signIn = try curl(["--data", "link=" + secret, localhost(server) + "/signin"])
        #expect(signIn.contains("http/1.1 303"), "\(signIn)")
        #expect(signIn.contains("set-cookie: fa_session=fa_") && signIn.contains("; secure"), "\(signIn)")
        for path in ["/", "/signin", "/no-such-page", "/health", "/v1/sync/pull"] {
            let page = try curl([localhost(server) + path])
            #expect(page.contains("strict-transport-security: max-age=31536000"), "\(path): \(page)")
        }
    }

    /// `--ca-file` names only a regular file it can read at once (before: a FIFO, or a
    /// `<(…)` whose writer stalls, held `archive sync` for ever, past `--timeout`; a missing
    /// file said "it holds no PEM certificate").
    @Test func aCAFileIsARegularFileReadAtOnce() throws {
        let fifo = directory.path("ca.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases: [(path: String, says: String)] = [
            (fifo, "it is a FIFO (a pipe), not a regular file"),
            (directory.path("missing.pem"), "no such file"),
            (directory.url.path, "it is a directory"),
            ("/dev/zero", "it is not a regular file"),
        ]
        for (path, says) in cases {
            let refused = try sync("https://localhost:1", token: "fa_" + String(repeating: "x", count: 43), ["--ca-file", path, "--timeout", "60"])
            #expect(refused.status == 1, "\(path): \(refused.stdout)")
            #expect(refused.stderr.contains("cannot read the certificate authorities in \(path) (--ca-file, ARCHIVE_SYNC_CA_FILE or the syncCAFile setting): \(says)"), "\(path): \(refused.stderr)")
        }
        let empty = directory.path("empty.pem")
        #expect(TestFile.create(atPath: empty, contents: Data("not a certificate\n".utf8)))
        let notPEM = try sync("https://localhost:1", token: "fa_" + String(repeating: "x", count: 43), ["--ca-file", empty])
        #expect(notPEM.stderr.contains("it holds no PEM certificate"), "\(notPEM.stderr)")
    }
}
