import ArchiveSyncWire
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
import ArchiveSyncModel

/// The real `archive sync --server` against a service that lies, stalls or floods
/// (``ScriptedSyncService``): every sync ends, within its bounds, saying what happened, and
/// the database stays as a finished or cut-off sync leaves it. Each case was seen hang or
/// print what the service said before its bound.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLIHostileServiceTests {
    static let feed = String(repeating: "ab", count: 16)
    static let peer = DeviceID(bytes: [UInt8](repeating: 9, count: 16))!
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func archive(_ arguments: [String], database: String, input: ChildProcess.Input = .null) throws -> ChildProcess.Result {
        try ServiceProcess.archive(arguments, database: database, in: directory, input: input)
    }

    private func sync(_ service: ScriptedSyncService, _ extra: [String] = [], database: String? = nil) throws -> ChildProcess.Result {
        try archive(["sync", "--server", service.url, "--token-stdin"] + extra, database: database ?? directory.path("phone.sqlite3"), input: .pipe(Data("fa_test\n".utf8)))
    }

    private func favoriteCount(_ database: String) throws -> Int {
        let result = try archive(["favorites", "--json", "--limit", "10000"], database: database)
        return ((try result.json() as? [String: Any])?["favorites"] as? [Any])?.count ?? -1
    }

    /// A page of `changes` as JSON.
    static func page(_ changes: [FavoriteChange] = [], cursor: Int64 = 0, hasMore: Bool = false, reset: Bool = false) -> String {
        let page = SyncPullResponse(feed: feed, changes: changes.map(WireChange.init), cursor: cursor, hasMore: hasMore, reset: reset, pushed: 0)
        return String(decoding: (try? JSONEncoder().encode(page)) ?? Data(), as: UTF8.self)
    }

    /// Favorite `id` stored by the peer device now.
    static func stored(_ id: Int) -> FavoriteChange {
        Changes.stored(id, at: Int64(Date().timeIntervalSince1970 * 1000), by: peer)
    }

    /// Pages that say `reset` and `hasMore` at the same cursor for ever: one reset is
    /// taken, the second refused (seen loop for ever: the progress check let any reset by).
    @Test func resetPagesForEverAreRefusedAtTheSecond() throws {
        let service = try ScriptedSyncService { request, _ in
            guard request.integer("limit") != 0 else { return .json(status: 200, Self.page(hasMore: true)) }
            return .json(status: 200, Self.page([Self.stored(1)], cursor: 5, hasMore: true, reset: true))
        }
        let result = try sync(service)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("a second reset: it does not move forward"), "\(result.stderr)")
        #expect(service.requests.count < 10, "\(service.requests.count) requests")
    }

    /// A service with new favorites for ever: `--max-changes` stops the sync at the bound,
    /// what it applied kept (seen fill the disk without end).
    @Test func aSyncTakesAtMostMaxChanges() throws {
        let service = try ScriptedSyncService { request, _ in
            let cursor = request.integer("cursor") ?? 0, limit = request.integer("limit") ?? 0
            guard limit > 0 else { return .json(status: 200, Self.page(hasMore: true)) }
            let changes = (cursor + 1...cursor + limit).map { Self.stored(Int($0)) }
            return .json(status: 200, Self.page(changes, cursor: cursor + limit, hasMore: true))
        }
        let database = directory.path("flooded.sqlite3")
        let result = try sync(service, ["--max-changes", "2500"], database: database)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("has more than 2500 changes for this sync (--max-changes): the first 2500 were applied and are kept"), "\(result.stderr)")
        #expect(try favoriteCount(database) == 2500)
        #expect(try archive(["check"], database: database).status == 0)
        // The next sync goes on from where this one stopped.
        let next = try sync(service, ["--max-changes", "100"], database: database)
        #expect(next.stderr.contains("the first 100 were applied"), "\(next.stderr)")
        #expect(service.requests.contains { $0.integer("cursor") == 2500 && $0.integer("limit") == 100 })
        #expect(try favoriteCount(database) == 2600)
    }

    /// An answer dripped a byte a second, or none at all: `--timeout` bounds the whole
    /// request (seen run for ever with the drip, and take 30 s whatever --timeout said).
    @Test(arguments: [false, true])
    func aRequestEndsAtItsTimeoutWhateverTheServiceSends(drips: Bool) throws {
        let service = try ScriptedSyncService { _, _ in drips ? .drip(interval: .milliseconds(500)) : .silent }
        let result = try sync(service, ["--timeout", "2"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("did not answer within 2 s (a whole request, its answer included; --timeout sets it)"), "\(result.stderr)")
    }

    /// Counts that are not counts of the push are refused, not printed (seen print
    /// "sent 1000000000 (-5 superseded)").
    @Test func pushCountsThatDoNotAddUpAreRefused() throws {
        let service = try ScriptedSyncService { request, _ in
            if request.method == "POST" {
                return .json(status: 200, #"{"applied":1000000000,"superseded":-5,"alreadyHeld":0,"pushed":1}"#)
            }
            return .json(status: 200, Self.page())
        }
        let database = directory.path("counted.sqlite3")
        #expect(try archive(["add", "1"], database: database).status == 0)
        let result = try sync(service, database: database)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("a push of 1 changes answered as 1000000000 applied, -5 superseded and 0 already held"), "\(result.stderr)")
        #expect(!result.stdout.contains("1000000000"), "\(result.stdout)")
    }

    /// A number out of range is named, not "not valid JSON".
    @Test func anOutOfRangeNumberIsNamed() throws {
        let service = try ScriptedSyncService { _, _ in
            .json(status: 200, #"{"feed":"\#(Self.feed)","changes":[],"cursor":99999999999999999999,"hasMore":false,"reset":false,"pushed":0}"#)
        }
        let result = try sync(service)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cursor: cursor is 99999999999999999999: not a whole number from"), "\(result.stderr)")
        #expect(!result.stderr.contains("not valid JSON"), "\(result.stderr)")
    }

    /// A port nothing listens on: one plain sentence, "refused", no errno, no doubled prefix.
    @Test func anUnreachableServiceIsOnePlainSentence() throws {
        // A socket bound but not listening: connections to its port are refused while it is open.
        let holder = try LoopbackSocket()
        let url = "http://127.0.0.1:\(holder.port)"
        let result = try archive(["sync", "--server", url, "--token-stdin"], database: directory.path("offline.sqlite3"), input: .pipe(Data("fa_test\n".utf8)))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot reach \(url): the connection was refused (nothing listens at that address and port)"), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "cannot reach").count == 2, "\(result.stderr)")
        #expect(!result.stderr.contains("errno") && !result.stderr.contains("error set"), "\(result.stderr)")
    }

    /// `--token-stdin` reads the token from standard input, and only there.
    @Test func theTokenCanComeFromStandardInput() throws {
        let service = try ScriptedSyncService { request, _ in
            guard request.headers["authorization"] == "Bearer fa_from_stdin" else { return .json(status: 401, #"{"error":"unauthorized"}"#) }
            return .json(status: 200, Self.page())
        }
        let database = directory.path("stdin.sqlite3")
        let result = try archive(["sync", "--server", service.url, "--token-stdin"], database: database, input: .pipe(Data("fa_from_stdin\n".utf8)))
        #expect(result.status == 0, "\(result.stderr)")
        // A token in the arguments (which every local user reads in the process list) is
        // refused before anything is sent, pointing to the ways that keep it private.
        let sent = service.requests.count
        let argument = try archive(["sync", "--server", service.url, "--token", "fa_from_stdin"], database: database)
        #expect(argument.status != 0, "\(argument.stdout)")
        #expect(argument.stderr.contains("--token is refused") && argument.stderr.contains("--token-stdin") && argument.stderr.contains("ARCHIVE_SYNC_TOKEN"), "\(argument.stderr)")
        #expect(service.requests.count == sent, "nothing was sent")
        #expect(!(try archive(["sync", "--help"], database: database).stdout.contains("--token <")), "--help no longer offers it")
        // Nothing on standard input (`< /dev/null`, an empty line) is said as such, with how to
        // give it (before: "is not a token"); nothing is sent.
        for input in [ChildProcess.Input.null, .pipe(Data("\n".utf8))] {
            let empty = try archive(["sync", "--server", service.url, "--token-stdin"], database: directory.path("empty.sqlite3"), input: input)
            #expect(empty.status != 0 && empty.stderr.contains("no token on standard input"), "\(empty.stderr)")
        }
        #expect(service.requests.count == sent, "nothing was sent")
    }
}
