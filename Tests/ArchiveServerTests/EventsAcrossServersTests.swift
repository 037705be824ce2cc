import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import TestSupport
import Testing

/// Several `archive-server`s on one PostgreSQL hear each other's pushes: a device's event
/// stream held by server B hears a push that landed on server A (PostgreSQL's `LISTEN`/
/// `NOTIFY`), through PgBouncer too (the servers' statements through it, their `LISTEN` on
/// a direct connection, `--postgres-events`); and when B's way to the announcements is
/// lost and comes back, B's streams are told to read again, so a push announced while B
/// could not hear it never leaves a page stale. Real processes throughout.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct EventsAcrossServersTests {
    /// An event stream of `token`'s device on `server`, its head read.
    private func stream(on server: ServiceProcess, token: String) throws -> RawHTTPConnection {
        let stream = try RawHTTPConnection(url: server.url)
        #expect(stream.send("GET \(SyncAPI.eventsPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"))
        let head = try stream.read(until: "retry: 2000")
        #expect(head.contains("text/event-stream"), "\(head)")
        return stream
    }

    @Test(arguments: [false, true])
    func aStreamOnOneServerHearsAPushOnAnother(throughPgBouncer: Bool) throws {
        let direct = try TestPostgres.server().newDatabase()
        // Through PgBouncer: the same database, its statements through the pooler, the
        // LISTEN on the direct URL.
        let url = throughPgBouncer ? direct.replacingOccurrences(of: "?host=\(try TestPostgres.server().socketDirectory)", with: "?host=\(try TestPgBouncer.server().socketDirectory)&port=\(TestPgBouncer.port)") : direct
        // (A password in that URL works, and is warned of: the arguments are every local user's to read.)
        let extra = throughPgBouncer ? ["--postgres-events", direct.replacingOccurrences(of: "archive@", with: "archive:s3cret@")] : []
        let a = try ServiceProcess(.postgres, arguments: extra, database: url)
        let b = try ServiceProcess(.postgres, arguments: extra, database: url)
        let tokens = try a.addUserWithDevices("alice")
        let phone = Changes.device(1), laptop = Changes.device(2)
        let listening = try stream(on: b, token: try tokens(laptop))
        #expect(try a.push([Changes.stored(5, at: 1_700_000_000_000, by: phone)], device: phone, token: try tokens(phone)).status == 200)
        _ = try listening.read(until: "event: feed")
        // Another user's push on A tells alice's stream nothing; hers on B does (B's own, at once).
        let bobs = try a.addUserWithDevices("bob")
        #expect(try a.push([Changes.stored(6, at: 1_700_000_000_000, by: phone)], device: phone, token: try bobs(phone)).status == 200)
        #expect(try b.push([Changes.stored(7, at: 1_700_000_000_001, by: phone)], device: phone, token: try tokens(phone)).status == 200)
        let next = try listening.read(until: "event: feed")
        #expect(next.components(separatedBy: "event: feed").count == 2, "one event, alice's: \(next)")
        let stopped = try #require(b.stop())
        #expect(stopped.stderr.contains("the PostgreSQL password is on the command line (--postgres-events)") == throughPgBouncer, "\(stopped.stderr)")
        #expect(!stopped.stderr.contains("s3cret"))
    }

    /// The connection sending an announcement is cut under its `pg_notify` (a pooler or a
    /// balancer between the server and PostgreSQL): the announcement is sent again on
    /// another, and a stream on the other server hears the push; before, it was dropped
    /// with a warning, and that stream heard nothing until the next push.
    @Test func anAnnouncementWhoseConnectionIsCutIsSentAgain() throws {
        let postgres = try TestPostgres.server()
        let direct = try postgres.newDatabase()
        let relay = try SeveringRelay(to: postgres.socketDirectory, severingFirstSending: "pg_notify")
        let relayed = try relay.url(of: direct)
        // A's statements through the relay, its LISTEN direct; B direct.
        let a = try ServiceProcess(.postgres, arguments: ["--postgres-events", direct], database: relayed)
        let b = try ServiceProcess(.postgres, database: direct)
        let tokens = try a.addUserWithDevices("alice")
        let phone = Changes.device(1), laptop = Changes.device(2)
        let listening = try stream(on: b, token: try tokens(laptop))
        #expect(try a.push([Changes.stored(5, at: 1_700_000_000_000, by: phone)], device: phone, token: try tokens(phone)).status == 200)
        #expect(relay.severed(), "the announcement's connection was cut")
        _ = try listening.read(until: "event: feed", timeout: .seconds(30))
        let stopped = try #require(a.stop())
        #expect(stopped.stderr.contains("announcing again in"), "\(stopped.stderr.suffix(2_000))")
    }

    @Test func aStreamHearsWhatWasAnnouncedWhileItsServerCouldNotListen() throws {
        let postgres = try TestPostgres.server()
        let url = try postgres.newDatabase()
        let a = try ServiceProcess(.postgres, database: url)
        let b = try ServiceProcess(.postgres, database: url)
        let tokens = try a.addUserWithDevices("alice")
        let phone = Changes.device(1), laptop = Changes.device(2)
        #expect(try a.pull(device: phone, token: try tokens(phone)).0.status == 200)  // A's pool holds a connection
        let listening = try stream(on: b, token: try tokens(laptop))
        // No new connection to the database, and every listener's cut: B cannot listen.
        let name = try #require(url.firstRange(of: "@/").flatMap { at in url[at.upperBound...].split(separator: "?").first.map(String.init) })
        let administration = url.replacingOccurrences(of: "@/\(name)?", with: "@/postgres?")
        _ = try postgres.query("ALTER DATABASE \(name) ALLOW_CONNECTIONS false", in: administration)
        let cut = try postgres.query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'archive-server events' AND datname = '\(name)'", in: administration)
        #expect(cut == "2", "each server's listener: \(cut)")
        // A push lands through A's open connection while B cannot hear its announcement.
        #expect(try a.push([Changes.stored(5, at: 1_700_000_000_000, by: phone)], device: phone, token: try tokens(phone)).status == 200)
        // B listens again once it can, and tells its streams to read again.
        _ = try postgres.query("ALTER DATABASE \(name) ALLOW_CONNECTIONS true", in: administration)
        _ = try listening.read(until: "event: feed", timeout: .seconds(30))
    }
}
