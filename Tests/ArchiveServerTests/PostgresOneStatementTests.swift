import ArchiveServerStorage
import ArchiveServer
import ArchiveServerPostgres
import ArchiveStorage
import ArchiveSyncWire
import Logging
import Synchronization
import TestSupport
import Testing
import ArchiveSyncModel

/// PostgreSQL answers a device's push and pull in one statement when the device's own
/// token is already bound to it, and in a transaction that decides step by step otherwise
/// (`PostgresSyncStorage+OneStatement.swift`). These prove that the statement admits only
/// what ``DeviceBinding`` admits, that the common case takes it and every other case the
/// transaction, and that pushes and pulls of one user at once (pulls read from a snapshot,
/// without the user's lock) never skip a change, never deadlock, and drop only tombstones
/// every device applied. Seen red: the statement's check admitting a shared token (the
/// differential case and the shared token's count), the push's lock taken out of its
/// statement (two pushes of one user took the same seqs), and the drop after a pull at the
/// feed's end left out (the tombstones stayed, the stale push and forgotten device passed).
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct PostgresOneStatementTests {
    static let start: Int64 = 1_790_000_000_000

    /// Storage on a new database of the test server, and the database's URL.
    static func withStorage(connections: Int = 2, _ body: (PostgresSyncStorage, String) async throws -> Void) async throws {
        let url = try TestPostgres.server().newDatabase()
        var logger = Logger(label: "tests")
        logger.logLevel = .warning
        try await PostgresSyncStorage.with(try PostgresLocation(url: url), maximumConnections: connections, logger: logger) { storage in
            try await body(storage, url)
        }
    }

    /// The phone whose token ``userWithBoundPhone(_:on:)`` binds.
    static let phone = Changes.device(1)

    /// User `name` added with a device token labelled `phone`, signed in, and its token bound
    /// to ``phone`` by a first push (favorite 1 stored, seq 1).
    static func userWithBoundPhone(_ name: String, on storage: PostgresSyncStorage) async throws -> AuthenticatedUser {
        let user = try #require(try await storage.authenticate(try await storage.add(name, device: "phone", now: start)))
        _ = try await storage.push([Changes.stored(1, at: start, by: Self.phone)], from: Self.phone, through: 1, seen: 0, for: user)
        return user
    }

    @Test func theStatementAdmitsOnlyWhatTheBindingRuleAdmits() throws {
        let device = Changes.device(1), other = Changes.device(2)
        var cases: [(bound: DeviceID?, shared: Bool, taken: Bool)] = []
        for bound in [nil, device, other] { for shared in [false, true] { for taken in [false, true] { cases.append((bound, shared, taken)) } } }
        func bytea(_ id: DeviceID?) -> String { id.map { "'\\x\($0.description)'::bytea" } ?? "NULL::bytea" }
        let rows = cases.enumerated().map { index, facts in
            "(\(index), \(bytea(facts.bound)), \(facts.shared), \(facts.taken), \(bytea(device)))"
        }
        let postgres = try TestPostgres.server()
        let answers = try postgres.query("""
            SELECT string_agg(CASE WHEN \(PostgresSyncStorage.admittedByItsBinding) THEN 't' ELSE 'f' END, '' ORDER BY n)
            FROM (VALUES \(rows.joined(separator: ", "))) AS facts (n, bound, shared, taken, device)
            """, in: try postgres.newDatabase())
        #expect(answers.count == cases.count, "\(answers)")
        for (facts, answer) in zip(cases, answers) {
            let rule = DeviceBinding.decide(device: device, bound: facts.bound, shared: facts.shared, takenByAnother: facts.taken)
            let ownAndBound = facts.bound == device && !facts.shared && !facts.taken
            // What it admits, the rule admits; and it admits exactly the case it is for.
            #expect(answer == "f" || rule == .admitted, "the statement admits \(facts), which DeviceBinding answers \(rule)")
            #expect((answer == "t") == ownAndBound, "the statement answers \(answer) for \(facts)")
        }
    }

    @Test func aBoundDeviceTakesOneStatementAndEveryOtherCaseTheTransaction() async throws {
        try await Self.withStorage { storage, _ in
            let answered = { storage.oneStatementAnswers.load(ordering: .relaxed) }
            let laptop = Changes.device(2)
            // The first push binds the token: the transaction.
            let alice = try await Self.userWithBoundPhone("alice", on: storage)
            #expect(answered() == 0)
            // Bound: one statement each.
            let pushed = try await storage.push([Changes.stored(2, at: Self.start + 1, by: Self.phone)], from: Self.phone, through: 2, seen: 0, for: alice)
            #expect(pushed.applied == 1 && pushed.pushed == 2 && answered() == 1, "\(pushed)")
            let page = try await storage.pull(for: alice, device: Self.phone, after: 0, limit: 10)
            #expect(page.changes.count == 2 && page.cursor == 2 && !page.hasMore && page.pushed == 2 && answered() == 2, "\(page)")
            // The same push again: held already, counted after the statement.
            let again = try await storage.push([Changes.stored(2, at: Self.start + 1, by: Self.phone)], from: Self.phone, through: 2, seen: 2, for: alice)
            #expect(again.applied == 0 && again.alreadyHeld == 1 && answered() == 3, "\(again)")
            // A cursor past the feed's end (a device restored from an older copy): read from the start.
            let restored = try await storage.pull(for: alice, device: Self.phone, after: 1_000_000, limit: 10)
            #expect(restored.reset && restored.changes.map(\.id) == [1, 2] && restored.cursor == 3 && answered() == 4, "\(restored)")

            // The phone's token as another device: refused, by the transaction.
            await #expect(throws: ServerStorageError.tokenOfAnotherDevice(user: "alice", label: "phone")) {
                try await storage.pull(for: alice, device: laptop, after: 0, limit: 10)
            }
            #expect(answered() == 4)
        }
    }

    @Test func aSharedTokenAStalePushAndAForgottenDeviceTakeTheTransaction() async throws {
        try await Self.withStorage { storage, url in
            let answered = { storage.oneStatementAnswers.load(ordering: .relaxed) }
            let old = Changes.device(3)
            let bob = try await Self.userWithBoundPhone("bob", on: storage)
            _ = try await storage.push([Changes.removed(1, at: Self.start + 1, by: Self.phone)], from: Self.phone, through: 2, seen: 0, for: bob)
            // The phone, bob's only device, pulls to the end twice: the second says it applied
            // the removal, which then goes (in a transaction of its own, after the statement).
            let first = try await storage.pull(for: bob, device: Self.phone, after: 0, limit: 10)
            _ = try await storage.pull(for: bob, device: Self.phone, after: first.cursor, limit: 10)
            #expect(answered() == 3)
            #expect(try TestPostgres.server().query("SELECT count(*) FROM user_favorites", in: url) == "0", "the applied removal is still held")
            await #expect(throws: ServerStorageError.stalePush(seen: 0, collected: first.cursor)) {
                try await storage.push([Changes.stored(1, at: Self.start + 2, by: Self.phone)], from: Self.phone, through: 3, seen: 0, for: bob)
            }
            await #expect(throws: ServerStorageError.forgottenDevice(cursor: 1, collected: first.cursor)) {
                try await storage.pull(for: bob, device: Self.phone, after: 1, limit: 10)
            }
            #expect(answered() == 3)

            // A shared token serves a device with no token of its own, in the transaction.
            let token = try await storage.addDevice("legacy", of: "bob", now: Self.start)
            _ = try TestPostgres.server().query("UPDATE device_tokens SET shared = true WHERE label = 'legacy' RETURNING label", in: url)
            let legacy = try #require(try await storage.authenticate(token))
            for time in 3...4 {
                let answer = try await storage.push(
                    [Changes.stored(5, at: Self.start + Int64(time), by: old)], from: old, through: Int64(time), seen: first.cursor, for: legacy)
                #expect(answer.applied == 1, "\(answer)")
            }
            let page = try await storage.pull(for: legacy, device: old, after: first.cursor, limit: 10)
            #expect(page.changes.count == 1, "\(page)")
            #expect(answered() == 3, "a shared token's request took the one statement")
        }
    }

    /// Four devices of one user push and pull at once on eight connections, removing as
    /// much as they store, each pulling on from the cursor its last page gave it: each ends
    /// holding the merge rule's answer over every change made, and the user's tombstones go
    /// as every device applies them.
    @Test func pushesAndPullsOfOneUserAtOnceSkipNoChange() async throws {
        try await Self.withStorage(connections: 8) { storage, url in
            let devices = (1...4).map { Changes.device(UInt8($0)) }
            _ = try await storage.add("carol", device: "d0", now: Self.start)
            var users: [AuthenticatedUser] = []
            for (index, device) in devices.enumerated() {
                let user = try #require(try await storage.authenticate(try await storage.addDevice("d\(index + 1)", of: "carol", now: Self.start)))
                _ = try await storage.pull(for: user, device: device, after: 0, limit: 10)
                users.append(user)
            }
            let ends = try await withThrowingTaskGroup(of: (Int, DeviceRun).self) { group in
                for (index, (device, user)) in zip(devices, users).enumerated() {
                    group.addTask {
                        var random = SeededGenerator(seed: UInt64(index + 1))
                        var run = DeviceRun()
                        for round in 0..<40 {
                            let time = Self.start + Int64(round * 10 + Int.random(in: 0...9, using: &random))
                            let batch = Set((0..<3).map { _ in Int.random(in: 1...12, using: &random) }).map { id in
                                Bool.random(using: &random)
                                    ? Changes.removed(id, at: time, by: device) : Changes.stored(id, at: time, by: device, text: "\(index)-\(round)")
                            }
                            run.made += batch
                            run.held += batch
                            _ = try await storage.push(batch, from: device, through: Int64(round + 1), seen: run.cursor, for: user)
                            run.cursor = try await Self.pull(storage, user, device, from: run.cursor, into: &run.held)
                        }
                        return (index, run)
                    }
                }
                return try await group.reduce(into: [Int: DeviceRun]()) { $0[$1.0] = $1.1 }
            }
            // Every change made: each device pulls on from where it was, to the end, twice
            // (the second says it applied the first): then every tombstone has gone.
            let answer = MergeOracle.answer(ends.values.flatMap(\.made)).favorites
            for (index, (device, user)) in zip(devices, users).enumerated() {
                var run = try #require(ends[index])
                run.cursor = try await Self.pull(storage, user, device, from: run.cursor, into: &run.held)
                #expect(MergeOracle.answer(run.held).favorites == answer, "device \(index) holds other favorites than the rule's answer")
                _ = try await Self.pull(storage, user, device, from: run.cursor, into: &run.held)
            }
            #expect(try TestPostgres.server().query("SELECT count(*) FROM user_favorites WHERE removed", in: url) == "0")
            #expect(storage.oneStatementAnswers.load(ordering: .relaxed) > 4 * 40 * 2, "the requests took the transaction")
        }
    }

    /// What a device made, what it holds (made or pulled), and its cursor.
    struct DeviceRun {
        var made: [FavoriteChange] = [], held: [FavoriteChange] = [], cursor: Int64 = 0
    }

    /// Pulls from `cursor` to the feed's end, appending what comes to `held`; returns the last cursor.
    static func pull(
        _ storage: PostgresSyncStorage, _ user: AuthenticatedUser, _ device: DeviceID, from cursor: Int64, into held: inout [FavoriteChange]
    ) async throws -> Int64 {
        var cursor = cursor
        while true {
            let page = try await storage.pull(for: user, device: device, after: cursor, limit: 5)
            for (position, wire) in page.changes.enumerated() { held.append(try wire.change(index: position)) }
            cursor = page.cursor
            if !page.hasMore { return cursor }
        }
    }
}
