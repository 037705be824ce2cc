import ArchiveServerStorage
import ArchiveServerSQLite
import ArchiveServer
import ArchiveStorage
import CrashVFS
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// The power cut at every write of `archive-server`'s SQLite backend (``PowerCut``): two
/// devices' pushes and pulls, each answered `200` only once its transaction is on disk, so
/// a cut keeps every acknowledged one and at most the one in flight, whole; the feed's seqs
/// and the devices' cursors agree with the favorites. RELIABILITY.md, case 90. (In
/// ``PowerLossTests``'s suite: the crash VFS serves one workload at a time.)
extension PowerLossTests {
    /// What the service's file holds for its user: each favorite (its dish name, or
    /// "removed"), the feed's last seq, and each device's pushed and pulled cursors.
    struct Feed: Equatable, Sendable, CustomStringConvertible {
        var favorites: [Int: String]
        var seq: Int64
        var devices: [String: [Int64]]
        var description: String { "\(favorites.count) favorites \(favorites.sorted { $0.key < $1.key }.prefix(6)), seq \(seq), devices \(devices)" }
    }

    static let phone = DeviceID(bytes: Array(repeating: 0xA1, count: 16))!
    static let laptop = DeviceID(bytes: Array(repeating: 0xB2, count: 16))!

    static func serverChange(_ id: Int, at milliseconds: Int64, by device: DeviceID, removed: Bool = false) -> FavoriteChange {
        let stamp = ChangeStamp(time: HybridTimestamp(milliseconds: milliseconds), device: device)
        guard !removed else { return FavoriteChange(id: id, stamp: stamp, state: .removed) }
        let object = StoredArchiveObject(
            id: id, photoUrl: "https://p/\(id).jpg", category: "和食", dishName: "料理 \(id) \(milliseconds)",
            shopName: "店", introduction: "紹介", storedAt: Date(millisecondsSince1970: milliseconds))
        return FavoriteChange(id: id, stamp: stamp, state: .stored(object))
    }

    /// Opens the service's file through the default VFS (recovering it), checks it (SQLite's
    /// integrity check, and the feed's rules: no seq past the user's, one row per seq, no
    /// device past the feed) and reads its user's feed.
    static func readFeed(_ path: String) throws -> Feed {
        let database = try ServerDatabase(path: path)
        return try database.queue.read { db in
            let integrity = try db.fetchAll("PRAGMA integrity_check") { try $0.column(String.self, at: 0) }
            guard integrity == ["ok"] else { throw PowerCutError("integrity_check: \(integrity)") }
            let seq = try db.fetchOne("SELECT seq FROM users WHERE name = 'ann'") { try $0.int64(at: 0) } ?? -1
            var favorites: [Int: String] = [:]
            var seqs = Set<Int64>()
            let rows = try db.fetchAll("SELECT id, seq, removed, dish_name FROM user_favorites") { row in
                (try row.int(at: 0), try row.int64(at: 1), try row.int(at: 2), try row.column(String?.self, at: 3))
            }
            for (id, rowSeq, removed, name) in rows {
                guard rowSeq <= seq, seqs.insert(rowSeq).inserted else { throw PowerCutError("favorite \(id) has seq \(rowSeq), the user's is \(seq) (or another row has it)") }
                favorites[id] = removed == 1 ? "removed" : name ?? "?"
            }
            var devices: [String: [Int64]] = [:]
            let deviceRows = try db.fetchAll("SELECT hex(device), pushed, pulled FROM user_devices") { row in
                (try row.column(String.self, at: 0), try row.int64(at: 1), try row.int64(at: 2))
            }
            for (device, pushed, pulled) in deviceRows {
                guard pulled <= seq else { throw PowerCutError("device \(device) pulled to \(pulled), past the feed's \(seq)") }
                devices[String(device.prefix(4))] = [pushed, pulled]
            }
            return Feed(favorites: favorites, seq: seq, devices: devices)
        }
    }

    /// A phone pushes hearts, a laptop pulls them and pushes its own (one a removal of the
    /// phone's), the phone pulls: each call acknowledged when it returns, as the service's
    /// `200` is.
    static var pushesAndPulls: PowerCut.Workload<Feed> {
        // Each step with the user as the phone's and the laptop's tokens sign it in.
        let steps: [(SQLiteSyncBackend, (phone: AuthenticatedUser, laptop: AuthenticatedUser)) async throws -> Void] = [
            { _ = try await $0.push((1...5).map { Self.serverChange($0, at: 1_790_000_000_000, by: Self.phone) }, from: Self.phone, through: 5, seen: 0, for: $1.phone) },
            { _ = try await $0.pull(for: $1.laptop, device: Self.laptop, after: 0, limit: 100) },
            { _ = try await $0.push([Self.serverChange(3, at: 1_790_000_001_000, by: Self.laptop, removed: true), Self.serverChange(40, at: 1_790_000_001_000, by: Self.laptop)],
                                     from: Self.laptop, through: 2, seen: 5, for: $1.laptop) },
            { _ = try await $0.push((6...8).map { Self.serverChange($0, at: 1_790_000_002_000, by: Self.phone) }, from: Self.phone, through: 8, seen: 0, for: $1.phone) },
            { _ = try await $0.pull(for: $1.phone, device: Self.phone, after: 5, limit: 100) },
        ]
        return PowerCut.Workload<Feed>(
            prepare: { directory in
                let database = try ServerDatabase(path: directory.path("server.sqlite3"))
                defer { database.close() }
                let users = UserStore(database: database)
                // Each device's own token.
                let phone = try users.add("ann", now: 1_790_000_000_000)
                let laptop = try users.addDevice("laptop", of: "ann", now: 1_790_000_000_000)
                try Data((phone.text + "\n" + laptop.text).utf8).write(to: URL(fileURLWithPath: directory.path("tokens")))
            },
            steps: steps.count,
            run: { directory, configuration, count, acknowledged in
                let tokens = try String(contentsOfFile: directory.path("tokens"), encoding: .utf8).split(separator: "\n").map { AccessToken(text: String($0)) }
                let database = try ServerDatabase(path: directory.path("server.sqlite3"), configuration: configuration)
                // Closed before the harness counts or cuts: the backend's pool thread may drop
                // the last reference after the step returned, and its closing checkpoint
                // would land at another point in each run (or after the cut).
                defer { database.close() }
                let backend = SQLiteSyncBackend(database: database)
                guard tokens.count == 2, let phone = try await backend.authenticate(tokens[0]), let laptop = try await backend.authenticate(tokens[1]) else {
                    throw PowerCutError("a token was refused")
                }
                for step in steps.prefix(count) {
                    try await step(backend, (phone, laptop))
                    acknowledged()
                }
            },
            read: { try Self.readFeed($0.path("server.sqlite3")) })
    }

    @Test func pushesAndPullsOnTheSQLiteBackendSurviveAPowerCutAtEveryWrite() async throws {
        let tried = try await PowerCut.everyPoint(Self.pushesAndPulls)
        #expect(tried.points >= 10)
    }

    /// The same with an I/O error or a full disk at each call: the backend says it as
    /// ``ServerStorageError/unavailable(_:)`` or ``ServerStorageError/storageFull(_:)``, which
    /// the service answers `503` and `507` (nothing acknowledged: the client sends it again).
    @Test func pushesAndPullsOnTheSQLiteBackendSurviveAnIOErrorAtEveryCall() async throws {
        let tried = try await PowerCut.everyIOError(Self.pushesAndPulls, stride: 3)
        #expect(tried.calls >= 30)
        #expect(tried.errors.contains { $0.contains("I/O error") && $0.contains("send the same request again") }, "\(tried.errors)")
        #expect(tried.errors.contains { $0.contains("disk is full") }, "\(tried.errors)")
    }
}
