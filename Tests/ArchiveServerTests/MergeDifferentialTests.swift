import ArchiveServerStorage
import ArchiveServer
import ArchiveStorage
import ArchiveSyncWire
import Foundation
import TestSupport
import Testing
import ArchiveSyncModel

/// The merge rule runs in two places: ``FavoriteMerge`` in Swift (the engine, and the
/// SQLite backend, which calls it) and an `INSERT … ON CONFLICT … DO UPDATE … WHERE` in
/// PostgreSQL. Seeded random batches of changes to a few favorites (equal stamps, equal
/// stamp and device with different texts, removals against stores, texts whose byte order
/// and linguistic order differ) go through both backends, on a PostgreSQL cluster that
/// collates by ICU's `en-US`; what each backend holds must be what ``FavoriteMerge`` folds
/// and what the oracle written apart from it (``MergeOracle``) folds, removals included.
///
/// Each batch goes to two users, one in the order made and one in another, while a third
/// user's removals are collected after every batch: one user's tombstone collection must
/// never touch another's. Seen red with PostgreSQL's content tie-break reversed (`>` for
/// `<` on the fields) and with the SQLite backend's tombstone deletion without its user.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct MergeDifferentialTests {
    static let seeds: [UInt64] = Array(1...6)

    /// Texts whose UTF-8 byte order differs from a linguistic one (case, accents composed
    /// and decomposed, full-width, kana, emoji, a control character).
    static let texts = ["a", "B", "b", "A", "é", "e\u{301}", "z", "Ä", "ａ", "ア", "あ", "😀", "\u{1}x", "Z", "料理"]

    @Test(arguments: ServiceBackend.allCases, seeds)
    func bothBackendsTheRuleAndTheOracleAgree(backend: ServiceBackend, seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let devices = (1...3).map { Changes.device(UInt8($0)) }
        var batches: [[FavoriteChange]] = []
        for _ in 0..<Int.random(in: 20...40, using: &random) {
            let ids = Set((0..<Int.random(in: 1...6, using: &random)).map { _ in Int.random(in: 1...8, using: &random) })
            batches.append(ids.sorted().map { id in
                let stamp = ChangeStamp(
                    time: HybridTimestamp(milliseconds: 1_700_000_000_000 + Int64.random(in: 0...2, using: &random), counter: Int64.random(in: 0...1, using: &random)),
                    device: devices.randomElement(using: &random)!)
                guard Int.random(in: 0..<4, using: &random) > 0 else { return FavoriteChange(id: id, stamp: stamp, state: .removed) }
                func text() -> String { Self.texts.randomElement(using: &random)! }
                let object = StoredArchiveObject(
                    id: id, photoUrl: "https://p/" + text(), category: text(), dishName: "料理" + text(), shopName: text(),
                    introduction: text() + text(), storedAt: Date(millisecondsSince1970: 1_700_000_000_000 + Int64.random(in: 0...1, using: &random)))
                return FavoriteChange(id: id, stamp: stamp, state: .stored(object))
            })
        }
        let everything = batches.flatMap { $0 }
        let byOracle = Self.fold(everything, by: MergeOracle.later)
        let byRule = Self.fold(everything, by: FavoriteMerge.winner)
        #expect(byRule == byOracle, "seed \(seed): FavoriteMerge and the oracle disagree")

        let now = WallClock.system()
        try await backend.withUsers(now: now) { service, users in
            if backend == .postgres {
                let collation = try TestPostgres.server().query(
                    "SELECT daticulocale FROM pg_database WHERE datname = current_database()", in: try TestPostgres.server().newDatabase())
                #expect(collation == "en-US", "the cluster collates by \(collation)")
            }
            var accounts: [AuthenticatedUser] = []
            for name in ["alice", "bob", "carol"] {
                accounts.append(try #require(try await service.authenticate(try await users.add(name, device: "first", now: now))))
            }
            let (alice, bob, carol) = (accounts[0], accounts[1], accounts[2])
            let pusher = Changes.device(0xAA), collector = Changes.device(0xCC)
            let shuffled = batches.shuffled(using: &random)
            for index in batches.indices {
                _ = try await service.push(batches[index], from: pusher, through: Int64(index + 1), seen: 0, for: alice)
                _ = try await service.push(shuffled[index], from: pusher, through: Int64(index + 1), seen: 0, for: bob)
                // Carol removes favorites and, her only device having applied her whole feed,
                // her tombstones are collected: hers only.
                let removal = Changes.removed(100 + index, at: 1_700_000_000_000 + Int64(index), by: collector)
                let seen = try await service.pull(for: carol, device: collector, after: 0, limit: 1_000).cursor
                _ = try await service.push([removal], from: collector, through: Int64(index + 1), seen: seen, for: carol)
                let end = try await service.pull(for: carol, device: collector, after: seen, limit: 1_000).cursor
                _ = try await service.pull(for: carol, device: collector, after: end, limit: 1_000)
            }
            // Each user's feed read by a device of its own (its own token).
            func reader(_ name: String) async throws -> AuthenticatedUser {
                try #require(try await service.authenticate(try await users.addDevice("reader", of: name, now: now)))
            }
            for name in ["alice", "bob"] {
                let held = try await Self.held(by: try await reader(name), in: service)
                #expect(held == byOracle, "seed \(seed) (\(backend)): \(name) holds what the rule does not give: \(Self.difference(held, byOracle))")
            }
            #expect(try await Self.held(by: try await reader("carol"), in: service).isEmpty, "seed \(seed) (\(backend)): carol's tombstones were kept")
        }
    }

    /// Each favorite's winning change under `later`, removals included.
    static func fold(_ changes: [FavoriteChange], by later: (FavoriteChange, FavoriteChange) -> FavoriteChange) -> [Int: FavoriteChange] {
        var latest: [Int: FavoriteChange] = [:]
        for change in changes { latest[change.id] = latest[change.id].map { later($0, change) } ?? change }
        return latest
    }

    /// What the service holds for `user` (its whole feed, tombstones included), read as a
    /// new device (device 0xEE; `user` signed in with that device's token).
    static func held(by user: AuthenticatedUser, in service: any SyncBackend) async throws -> [Int: FavoriteChange] {
        var held: [Int: FavoriteChange] = [:]
        var cursor: Int64 = 0
        while true {
            let page = try await service.pull(for: user, device: Changes.device(0xEE), after: cursor, limit: 1_000)
            for (index, wire) in page.changes.enumerated() {
                let change = try wire.change(index: index)
                held[change.id] = change
            }
            cursor = page.cursor
            if !page.hasMore { return held }
        }
    }

    static func difference(_ held: [Int: FavoriteChange], _ expected: [Int: FavoriteChange]) -> String {
        Set(held.keys).union(expected.keys).sorted().filter { held[$0] != expected[$0] }.map { id in
            "\(id): held \(held[id].map { "\($0.stamp.time) \($0.state)" } ?? "nothing"), expected \(expected[id].map { "\($0.stamp.time) \($0.state)" } ?? "nothing")"
        }.joined(separator: "; ")
    }
}
