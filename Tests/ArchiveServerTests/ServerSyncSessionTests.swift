import ArchiveSyncClient
import ArchiveHTTP
import ArchiveStorage
import ArchiveSyncWire
import Foundation
import SQLite
import Synchronization
import TestSupport
import Testing
import ArchiveSyncModel

/// The client's paths a healthy loopback sync never takes, through the real `archive-server`
/// and the real HTTP transport: a push refused as stale (409) and one refused as too large
/// (413), the user's feed changing under a sync, a database restored from an older copy, and
/// the token revoked or the user removed between the pull and the push.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServerSyncSessionTests {
    /// The real transport, with a script: answers to put in place of the service's, and work
    /// to do before a push.
    final class Scripted: SyncTransport {
        let http: HTTPSyncTransport
        /// Per push, in order: an error to throw instead of sending it (`nil`: send it).
        let refusals = Mutex<[(@Sendable (SyncPushRequest) -> SyncTransportError?)]>([])
        /// Run once before the first push is sent.
        let beforePush = Mutex<(@Sendable () throws -> Void)?>(nil)
        /// A feed to answer instead of the service's, from the `n`-th pull on.
        let feedFrom = Mutex<(pull: Int, feed: String)?>(nil)
        private let counts = Mutex((pulls: 0, pushes: 0, sent: [Int]()))

        init(server: String, token: String) throws {
            http = try HTTPSyncTransport(server: server, token: token)
        }

        var pulls: Int { counts.withLock { $0.pulls } }
        /// How many changes each push that reached the service carried.
        var sent: [Int] { counts.withLock { $0.sent } }

        func pull(device: DeviceID, cursor: Int64, limit: Int) async throws -> SyncPullResponse {
            var page = try await http.pull(device: device, cursor: cursor, limit: limit)
            let number = counts.withLock { counts in
                counts.pulls += 1
                return counts.pulls
            }
            if let (from, feed) = feedFrom.withLock({ $0 }), number >= from { page.feed = feed }
            return page
        }

        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
            if let work = beforePush.withLock({ work in defer { work = nil }; return work }) { try work() }
            let refusal = refusals.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let error = refusal?(request) { throw error }
            counts.withLock { $0.sent.append(request.changes.count) }
            return try await http.push(request)
        }
    }

    static func object(_ id: Int) -> StoredArchiveObject {
        StoredArchiveObject(
            id: id, photoUrl: "https://p/\(id).jpg", category: "和食", dishName: "料理 \(id)", shopName: "店",
            introduction: "紹介", storedAt: Date(millisecondsSince1970: 1_700_000_000_000))
    }

    static func ids(_ database: ArchiveDatabase) throws -> [Int] {
        try database.favorites.allObjects().map(\.id).sorted()
    }

    /// A push refused as stale (409): the session pulls and pushes again, once, and lands.
    @Test func aStalePushIsPulledAndPushedAgain() async throws {
        let server = try ServiceProcess()
        let transport = try Scripted(server: server.url, token: try server.addUser("alice"))
        transport.refusals.withLock { $0 = [{ _ in .refused(server: "test", status: 409, message: "pull, then push again") }] }
        let phone = try ArchiveDatabase.inMemory()
        try phone.favorites.create(contentsOf: (1...3).map(Self.object))
        let summary = try await ServerSyncSession.run(phone, through: transport)
        #expect(summary.sent.applied == 3 && transport.sent == [3])
        #expect(transport.pulls >= 4, "the session did not pull again: \(transport.pulls) pulls")
        let laptop = try ArchiveDatabase.inMemory()
        _ = try await ServerSyncSession.run(laptop, through: try HTTPSyncTransport(server: server.url, token: try server.addUserToken()))
        #expect(try Self.ids(laptop) == [1, 2, 3])
    }

    /// A 409 after the first attempt pulled and committed changes and had a push
    /// acknowledged: the sync's account holds both attempts (before: only the second's, so
    /// the counts printed were too low and the TUI was not told its favorites changed), and
    /// what was pulled is not pushed back.
    @Test func aStalePushKeepsTheFirstAttemptsAccount() async throws {
        let server = try ServiceProcess()
        let token = try server.addUser("alice")
        let laptop = try ArchiveDatabase.inMemory()
        try laptop.favorites.create(contentsOf: [5, 6].map(Self.object))
        _ = try await ServerSyncSession.run(laptop, through: try HTTPSyncTransport(server: server.url, token: try server.addDevice("laptop", of: "alice")))
        let transport = try Scripted(server: server.url, token: token)
        // The first push lands; the second is refused as stale.
        transport.refusals.withLock { $0 = [{ _ in nil }, { _ in .refused(server: "test", status: 409, message: "pull, then push again") }] }
        let phone = try ArchiveDatabase.inMemory()
        try phone.favorites.create(contentsOf: (1...3).map(Self.object))
        let summary = try await ServerSyncSession.run(phone, through: transport, pushLimit: 1)
        #expect(summary.received.applied == 2, "the first attempt's pull was dropped: \(summary.received)")
        #expect(summary.sent.applied == 3 && summary.sent.alreadyHeld == 0, "\(summary.sent)")
        // Empty pushes record how far the feed was pushed (its pulled changes left out).
        #expect(transport.sent.filter { $0 > 0 } == [1, 1, 1], "what was pulled was pushed back, or a push went twice: \(transport.sent)")
        #expect(try Self.ids(phone) == [1, 2, 3, 5, 6])
    }

    /// A push refused as too large (413) is split in halves until each lands.
    @Test func aPushRefusedAsTooLargeIsSplit() async throws {
        let server = try ServiceProcess()
        let token = try server.addUser("alice")
        let transport = try Scripted(server: server.url, token: token)
        let tooLarge: @Sendable (SyncPushRequest) -> SyncTransportError? = { request in
            request.changes.count > 3 ? .tooLarge(server: "test", message: "push fewer changes at a time") : nil
        }
        transport.refusals.withLock { $0 = Array(repeating: tooLarge, count: 20) }
        let phone = try ArchiveDatabase.inMemory()
        try phone.favorites.create(contentsOf: (1...10).map(Self.object))
        let summary = try await ServerSyncSession.run(phone, through: transport)
        #expect(summary.sent.applied == 10)
        #expect(transport.sent.allSatisfy { $0 <= 3 } && transport.sent.reduce(0, +) == 10, "\(transport.sent)")
        let laptop = try ArchiveDatabase.inMemory()
        _ = try await ServerSyncSession.run(laptop, through: try HTTPSyncTransport(server: server.url, token: try server.addDevice("laptop", of: "alice")))
        #expect(try Self.ids(laptop) == Array(1...10))
    }

    /// The feed changes between the pages of one sync (the user removed and added again):
    /// refused, saying so, nothing of the other feed's page applied.
    @Test func aFeedThatChangesUnderASyncIsRefused() async throws {
        let server = try ServiceProcess()
        let token = try server.addUser("alice")
        let laptop = try ArchiveDatabase.inMemory()
        try laptop.favorites.create(contentsOf: (1...3).map(Self.object))
        _ = try await ServerSyncSession.run(laptop, through: try HTTPSyncTransport(server: server.url, token: token))
        let transport = try Scripted(server: server.url, token: try server.addDevice("phone", of: "alice"))
        transport.feedFrom.withLock { $0 = (2, String(repeating: "cd", count: 16)) }
        let phone = try ArchiveDatabase.inMemory()
        do {
            _ = try await ServerSyncSession.run(phone, through: transport)
            Issue.record("a changed feed was read on")
        } catch SyncTransportError.badAnswer(_, let reason) {
            #expect(reason.contains("the user's feed changed during the sync"), "\(reason)")
        }
        #expect(try Self.ids(phone).isEmpty)
    }

    /// A database put back from an older copy of itself: the service has taken more of its
    /// feed than the copy holds, so the copy pushes from its start, and a change it made
    /// after the restore still reaches the other devices.
    @Test func aRestoredCopyPushesFromTheStart() async throws {
        let server = try ServiceProcess()
        let token = try server.addUser("alice")
        let directory = server.directory
        let path = directory.path("phone.sqlite3"), backup = directory.path("backup.sqlite3")
        do {
            let phone = try ArchiveDatabase(path: path)
            try phone.favorites.create(Self.object(1))
            try Database(path: path).execute("VACUUM INTO ?", backup)
            try phone.favorites.create(contentsOf: (2...5).map(Self.object))
            _ = try await ServerSyncSession.run(phone, through: try HTTPSyncTransport(server: server.url, token: token))
        }
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        #expect(rename(backup, path) == 0)
        let restored = try ArchiveDatabase(path: path)
        try restored.favorites.create(Self.object(9))
        let summary = try await ServerSyncSession.run(restored, through: try HTTPSyncTransport(server: server.url, token: token))
        #expect(summary.sent.applied == 1 && summary.sent.alreadyHeld == 1, "\(summary.sent)")
        let laptop = try ArchiveDatabase.inMemory()
        _ = try await ServerSyncSession.run(laptop, through: try HTTPSyncTransport(server: server.url, token: try server.addDevice("laptop", of: "alice")))
        #expect(try Self.ids(laptop) == [1, 2, 3, 4, 5, 9])
        #expect(try Self.ids(restored) == [1, 2, 3, 4, 5, 9])
    }

    /// The token revoked, or the user removed, between this sync's pull and its push: the
    /// push is refused as unauthorized (never another user's account, never a 500); what
    /// the pull applied stays, with its cursor, and the local changes wait for the next sync.
    @Test(arguments: ["revoke", "remove"])
    func aTokenRevokedBetweenPullAndPushIsRefused(action: String) async throws {
        let server = try ServiceProcess()
        let token = try server.addUser("alice")
        let laptop = try ArchiveDatabase.inMemory()
        try laptop.favorites.create(Self.object(1))
        _ = try await ServerSyncSession.run(laptop, through: try HTTPSyncTransport(server: server.url, token: token))
        let transport = try Scripted(server: server.url, token: try server.addDevice("phone", of: "alice"))
        let command = [ServiceProcess.executable.path, "users", action, "alice"] + server.storageArguments
        let environment = ServiceProcess.environment(server.directory)
        transport.beforePush.withLock { $0 = {
            let result = try ChildProcess.run(command[0], Array(command.dropFirst()), environment: environment, timeout: .seconds(60))
            guard result.status == 0 else { throw ServiceFailed(stderr: result.stderr) }
        } }
        let phone = try ArchiveDatabase.inMemory()
        try phone.favorites.create(Self.object(2))
        await #expect(throws: SyncTransportError.unauthorized(server: server.url)) {
            _ = try await ServerSyncSession.run(phone, through: transport)
        }
        #expect(try Self.ids(phone) == [1, 2], "the pulled favorite was lost")
        #expect(try phone.favorites.localChangeCount(since: 0) == 1)
        if action == "revoke" {
            // A new token lets the device back in: its change lands.
            let renewed = try server.admin(["users", "token", "alice"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let summary = try await ServerSyncSession.run(phone, through: try HTTPSyncTransport(server: server.url, token: renewed))
            #expect(summary.sent.applied == 1)
        }
    }
}

extension ServiceProcess {
    /// A new token for alice (every earlier one stops working).
    func addUserToken() throws -> String {
        try admin(["users", "token", "alice"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
