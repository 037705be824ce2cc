import ArchiveServerPostgres
import ArchiveServerSQLite
import ArchiveServerStorage
import ArchiveSyncModel
import ArchiveSyncWire
import Logging
import SQLite
import TestSupport
import Testing

/// The storage interface's contract, which every backend passes: the suite is written once
/// against `SyncBackend` and `UserDirectory` and run on each backend in process (SQLite in
/// memory, a new PostgreSQL database, and one reached through PgBouncer in transaction
/// mode), as powersync-service runs one suite on every storage module. A behaviour of the service's storage is added here, once, and holds on both.
///
/// The service's HTTP frame, its processes and a backend's own ways (PostgreSQL's one
/// statement, SQLite's one writer) have their suites beside this one; what a device sees is
/// the same whatever the backend, and that is what this suite says.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct BackendConformanceTests {
    /// A backend of `kind` with one user, alice, signed in with her first device's token.
    private func withAlice(
        _ kind: ConformanceStorage, _ body: (_ backend: any SyncBackend, _ users: any UserDirectory, _ alice: AuthenticatedUser) async throws -> Void
    ) async throws {
        let now = WallClock.system()
        try await kind.withUsers(now: now) { backend, users in
            let token = try await users.add("alice", device: "first", now: now)
            let alice = try #require(try await backend.authenticate(token))
            try await body(backend, users, alice)
        }
    }

    /// Everything `user`'s feed holds, read from the start by a new device of the user's
    /// (labelled `label`, with a token of its own: tokens bind to their first device).
    private func feed(
        of user: String, as label: String, in backend: any SyncBackend, users: any UserDirectory, limit: Int = 1_000
    ) async throws -> [Int: FavoriteChange] {
        let reader = try #require(try await backend.authenticate(try await users.addDevice(label, of: user, now: WallClock.system())))
        return try await feed(of: reader, by: DeviceID.random(), in: backend, limit: limit)
    }

    /// Everything `user`'s feed holds, read from the start by `device` in pages of `limit`.
    private func feed(of user: AuthenticatedUser, by device: DeviceID, in backend: any SyncBackend, limit: Int = 1_000) async throws -> [Int: FavoriteChange] {
        var held: [Int: FavoriteChange] = [:]
        var cursor: Int64 = 0
        while true {
            let page = try await backend.pull(for: user, device: device, after: cursor, limit: limit)
            for (index, wire) in page.changes.enumerated() {
                let change = try wire.change(index: index)
                held[change.id] = change
            }
            #expect(page.cursor >= cursor, "a cursor went back")
            cursor = page.cursor
            if !page.hasMore { return held }
        }
    }

    /// `phone` stores favorite 7, pulls, then removes it: the cursor it had pulled to before
    /// the removal.
    private func storeThenRemoveSeven(by phone: DeviceID, for alice: AuthenticatedUser, in backend: any SyncBackend) async throws -> Int64 {
        _ = try await backend.push([Changes.stored(7, at: 1_700_000_000_000, by: phone)], from: phone, through: 1, seen: 0, for: alice)
        let seen = try await backend.pull(for: alice, device: phone, after: 0, limit: 100).cursor
        _ = try await backend.push([Changes.removed(7, at: 1_700_000_000_500, by: phone)], from: phone, through: 2, seen: seen, for: alice)
        return seen
    }

    @Test("the merge keeps each favorite's change of the greatest stamp, whatever the order it came in", arguments: ConformanceStorage.allCases)
    func theMergeKeepsTheGreatestStamp(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, users, alice in
            let phone = Changes.device(0x01), laptop = Changes.device(0x02)
            let first = try await backend.push([Changes.stored(1, at: 1_700_000_000_100, by: phone)], from: phone, through: 1, seen: 0, for: alice)
            #expect(first.applied == 1)
            // Older than what is held: superseded. The same change again: already held.
            let laptopsAccount = try #require(try await backend.authenticate(try await users.addDevice("laptop", of: "alice", now: WallClock.system())))
            let older = try await backend.push([Changes.stored(1, at: 1_700_000_000_050, by: laptop, text: " older")], from: laptop, through: 1, seen: 0, for: laptopsAccount)
            #expect(older.applied == 0 && older.superseded == 1, "\(older)")
            let again = try await backend.push([Changes.stored(1, at: 1_700_000_000_100, by: phone)], from: phone, through: 2, seen: 0, for: alice)
            #expect(again.applied == 0 && again.alreadyHeld == 1, "\(again)")
            // A later removal wins over the stored state.
            let removal = try await backend.push([Changes.removed(1, at: 1_700_000_000_200, by: laptop)], from: laptop, through: 2, seen: 0, for: laptopsAccount)
            #expect(removal.applied == 1)
            let held = try await feed(of: "alice", as: "reader", in: backend, users: users)
            #expect(held[1] == Changes.removed(1, at: 1_700_000_000_200, by: laptop), "\(held)")
            // Equal times: the device's bytes decide (0x02 after 0x01), on every backend alike.
            let tie = try await backend.push([Changes.stored(2, at: 1_700_000_000_300, by: laptop)], from: laptop, through: 3, seen: 0, for: laptopsAccount)
            let tied = try await backend.push([Changes.stored(2, at: 1_700_000_000_300, by: phone, text: " phone")], from: phone, through: 3, seen: 0, for: alice)
            #expect(tie.applied == 1 && tied.superseded == 1, "\(tie) \(tied)")
        }
    }

    @Test("a feed is read in pages of at most the limit, its cursor never going back, its name the same on every page", arguments: ConformanceStorage.allCases)
    func aFeedPagesByItsCursor(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, users, alice in
            let phone = Changes.device(0x01), reader = Changes.device(0xEE)
            _ = try await backend.push((1...5).map { Changes.stored($0, at: 1_700_000_000_000 + Int64($0), by: phone) }, from: phone, through: 1, seen: 0, for: alice)
            let readers = try #require(try await backend.authenticate(try await users.addDevice("reader", of: "alice", now: WallClock.system())))
            let probe = try await backend.pull(for: readers, device: reader, after: 0, limit: 0)
            #expect(probe.changes.isEmpty && !probe.feed.isEmpty, "a probe names the feed and carries nothing")
            var cursor: Int64 = 0, sizes: [Int] = [], more: [Bool] = []
            repeat {
                let page = try await backend.pull(for: readers, device: reader, after: cursor, limit: 2)
                #expect(page.feed == probe.feed && !page.reset)
                #expect(page.cursor > cursor || page.changes.isEmpty)
                sizes.append(page.changes.count)
                more.append(page.hasMore)
                cursor = page.cursor
            } while more.last == true
            #expect(sizes == [2, 2, 1] && more == [true, true, false], "\(sizes) \(more)")
            let end = try await backend.pull(for: readers, device: reader, after: cursor, limit: 2)
            #expect(end.changes.isEmpty && !end.hasMore && end.cursor == cursor)
        }
    }

    @Test("a removal's tombstone goes once every device of the user has applied it, and a new device never sees it", arguments: ConformanceStorage.allCases)
    func tombstonesGoOnceEveryDeviceHasAppliedThem(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, users, alice in
            let phone = Changes.device(0x01)
            let seen = try await storeThenRemoveSeven(by: phone, for: alice, in: backend)
            // Until the phone, alice's only device, has pulled past the removal, it is kept.
            #expect(try await feed(of: "alice", as: "early", in: backend, users: users)[7] != nil)
            // That reader is a device of alice's too: it must apply the removal as well.
            try await users.revokeDevice("early", of: "alice")
            let end = try await backend.pull(for: alice, device: phone, after: seen, limit: 100).cursor
            _ = try await backend.pull(for: alice, device: phone, after: end, limit: 100)
            let held = try await feed(of: "alice", as: "late", in: backend, users: users)
            #expect(held[7] == nil, "the tombstone was kept: \(held)")
        }
    }

    @Test("a token works until it is revoked, its device removed or its user removed; a new one for the user works", arguments: ConformanceStorage.allCases)
    func tokensWorkUntilRevoked(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, users, alice in
            let now = WallClock.system()
            let laptopToken = try await users.addDevice("laptop", of: "alice", now: now)
            let laptop = try #require(try await backend.authenticate(laptopToken))
            #expect(laptop.name == "alice" && laptop.device == "laptop" && laptop.id == alice.id && laptop.feed == alice.feed)
            #expect(Set(try await users.devices(of: "alice").map(\.label)) == ["first", "laptop"])
            try await users.revokeDevice("laptop", of: "alice")
            #expect(try await backend.authenticate(laptopToken) == nil)
            await #expect(throws: ServerStorageError.noSuchDevice(user: "alice", label: "laptop")) { try await users.revokeDevice("laptop", of: "alice") }
            // Revoking the user stops every token; a new one works.
            let second = try await users.addDevice("tablet", of: "alice", now: now)
            try await users.revoke("alice")
            #expect(try await backend.authenticate(second) == nil)
            let renewed = try await users.issueToken(for: "alice", device: "phone", now: now)
            #expect(try await backend.authenticate(renewed)?.name == "alice")
            // Removed: no token of hers works, and her name is free for someone new, under
            // another ID.
            try await users.remove("alice")
            #expect(try await backend.authenticate(renewed) == nil)
            let newcomer = try #require(try await backend.authenticate(try await users.add("alice", device: "first", now: now)))
            #expect(newcomer.id != alice.id && newcomer.feed != alice.feed)
        }
    }

    @Test("a device's own token binds to the first device that syncs with it; another device is refused", arguments: ConformanceStorage.allCases)
    func aTokenBindsToItsFirstDevice(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, _, alice in
            let phone = Changes.device(0x01), thief = Changes.device(0x66)
            _ = try await backend.pull(for: alice, device: phone, after: 0, limit: 10)
            let refusal = ServerStorageError.tokenOfAnotherDevice(user: "alice", label: "first")
            await #expect(throws: refusal) { _ = try await backend.pull(for: alice, device: thief, after: 0, limit: 10) }
            await #expect(throws: refusal) {
                _ = try await backend.push([Changes.stored(1, at: 1_700_000_000_000, by: thief)], from: thief, through: 1, seen: 0, for: alice)
            }
            // The phone itself goes on.
            #expect(try await backend.push([Changes.stored(1, at: 1_700_000_000_000, by: phone)], from: phone, through: 1, seen: 0, for: alice).applied == 1)
        }
    }

    @Test("one user's favorites are never another's", arguments: ConformanceStorage.allCases)
    func usersAreIsolated(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, users, alice in
            let bob = try #require(try await backend.authenticate(try await users.add("bob", device: "first", now: WallClock.system())))
            #expect(bob.id != alice.id && bob.feed != alice.feed)
            let phone = Changes.device(0x01)
            _ = try await backend.push([Changes.stored(3, at: 1_700_000_000_000, by: phone)], from: phone, through: 1, seen: 0, for: alice)
            #expect(try await feed(of: "bob", as: "reader", in: backend, users: users).isEmpty)
            #expect(try await backend.favorites(of: bob, matching: "", after: nil, limit: 50, window: 1_000).favorites.isEmpty)
            #expect(try await backend.held([3], of: bob).changes.isEmpty)
            #expect(Array(try await backend.held([3], of: alice).changes.keys) == [3])
        }
    }

    @Test("names and labels follow one rule: stored in lower case, refused when they break it", arguments: ConformanceStorage.allCases)
    func namesFollowOneRule(kind: ConformanceStorage) async throws {
        try await kind.withUsers(now: WallClock.system()) { backend, users in
            let token = try await users.add("Alice", device: "Phone", now: WallClock.system())
            let alice = try #require(try await backend.authenticate(token))
            #expect(alice.name == "alice" && alice.device == "phone")
            await #expect(throws: ServerStorageError.userExists("alice")) { _ = try await users.add("ALICE", device: "first", now: 0) }
            for bad in ["", "..", "-", "a b", String(repeating: "x", count: 65), "ä"] {
                await #expect(throws: ServerStorageError.invalidUserName(bad)) { _ = try await users.add(bad, device: "first", now: 0) }
                await #expect(throws: ServerStorageError.invalidDeviceLabel(bad)) { _ = try await users.addDevice(bad, of: "alice", now: 0) }
            }
            #expect(try await users.list().map(\.name) == ["alice"])
        }
    }

    @Test("an open stream's identity holds until its token is revoked, its user removed or the feeds renewed", arguments: ConformanceStorage.allCases)
    func streamIdentitiesHoldWhileTheirTokenDoes(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, users, alice in
            let laptop = try #require(try await backend.authenticate(try await users.addDevice("laptop", of: "alice", now: WallClock.system())))
            let first = StreamIdentity(alice), second = StreamIdentity(laptop)
            #expect(try await backend.stillValid([first, second]) == [first, second])
            try await users.revokeDevice("laptop", of: "alice")
            #expect(try await backend.stillValid([first, second]) == [first])
            #expect(try await users.renewFeeds() == 1)
            #expect(try await backend.stillValid([first]).isEmpty, "a renewed feed ends the streams of the old one")
        }
    }

    @Test("past collected tombstones a push is stale and a cursor forgotten; a cursor past the feed's end reads it again", arguments: ConformanceStorage.allCases)
    func limitsOfTheFeedsPast(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, users, alice in
            let phone = Changes.device(0x01)
            let seen = try await storeThenRemoveSeven(by: phone, for: alice, in: backend)
            let end = try await backend.pull(for: alice, device: phone, after: seen, limit: 100).cursor
            _ = try await backend.pull(for: alice, device: phone, after: end, limit: 100)  // every device applied it: it goes
            // A push that has not seen that far would bring back what was removed: refused.
            do {
                _ = try await backend.push([Changes.stored(8, at: 1_700_000_000_600, by: phone)], from: phone, through: 3, seen: seen, for: alice)
                Issue.record("a stale push was taken")
            } catch let error as ServerStorageError {
                guard case .stalePush(seen, let collected) = error else { throw error }
                #expect(collected > seen)
            }
            // A device whose cursor is behind them missed a removal: it starts again (410).
            let laptop = try #require(try await backend.authenticate(try await users.addDevice("laptop", of: "alice", now: WallClock.system())))
            do {
                _ = try await backend.pull(for: laptop, device: Changes.device(0x02), after: seen, limit: 100)
                Issue.record("a forgotten cursor was read")
            } catch let error as ServerStorageError {
                guard case .forgottenDevice(seen, _) = error else { throw error }
            }
            // A cursor past the end (a device restored from an older copy of the service) reads from the start.
            let restored = try await backend.pull(for: alice, device: phone, after: end + 1_000, limit: 100)
            #expect(restored.reset && restored.cursor == end, "\(restored)")
        }
    }

    @Test("a sign-in link signs one browser in once, before its end; revoking its label cancels it", arguments: ConformanceStorage.allCases)
    func signInLinksWorkOnce(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, users, _ in
            let now = WallClock.system(), hour: Int64 = 3_600_000
            let link = try await users.createSignInLink(for: "alice", label: "web", now: now, expiresAt: now + hour)
            #expect(try await backend.signInTarget(of: link) == SignInTarget(user: "alice", label: "web"))
            #expect(try await users.devices(of: "alice").first { $0.label == "web" }?.pendingLinkUntil == now + hour, "devices list shows the pending link")
            let session = AccessToken.generate()
            #expect(try await backend.redeemSignInLink(link, device: Changes.device(0x0B), session: session, sessionEnd: now + hour) == .signedIn(user: "alice", label: "web"))
            #expect(try await backend.authenticate(session)?.device == "web")
            #expect(try await backend.redeemSignInLink(link, device: Changes.device(0x0C), session: AccessToken.generate(), sessionEnd: now + hour) == .refused, "used once")
            // Signed out: the session's token stops.
            try await backend.endSession(try #require(try await backend.authenticate(session)))
            #expect(try await backend.authenticate(session) == nil)
            // An unused link of a label that is revoked signs nobody in.
            let pending = try await users.createSignInLink(for: "alice", label: "tablet", now: now, expiresAt: now + hour)
            try await users.revokeDevice("tablet", of: "alice")
            #expect(try await backend.signInTarget(of: pending) == nil)
            #expect(try await backend.redeemSignInLink(pending, device: Changes.device(0x0D), session: AccessToken.generate(), sessionEnd: now + hour) == .refused)
            // Past its end, none works.
            let late = try await users.createSignInLink(for: "alice", label: "late", now: now - 2 * hour, expiresAt: now - hour)
            #expect(try await backend.signInTarget(of: late) == nil)
        }
    }

    @Test("the revocation record holds every token revoked and user removed, and a restore keeps them so", arguments: ConformanceStorage.allCases)
    func theRevocationRecordKeepsWhatWasRevoked(kind: ConformanceStorage) async throws {
        try await withAlice(kind) { backend, users, alice in
            let now = WallClock.system()
            let laptopToken = try await users.addDevice("laptop", of: "alice", now: now)
            let bob = try #require(try await backend.authenticate(try await users.add("bob", device: "first", now: now)))
            let before = try await users.revocationRecord()
            try await users.revokeDevice("laptop", of: "alice")
            try await users.remove("bob")
            let record = try await users.revocationRecord()
            #expect(record.tokenHashes.isSuperset(of: before.tokenHashes) && record.tokenHashes.contains(laptopToken.hash))
            #expect(record.removedUsers.contains(bob.id) && record.userIDHighWater >= bob.id)
            // Restoring this very store with its own record: nothing revoked comes back, and
            // every user gets a new feed.
            let outcome = try await users.restore(keeping: record)
            #expect(outcome.users == 1, "\(outcome)")
            #expect(try await backend.authenticate(laptopToken) == nil)
            let renewed = try await backend.pull(for: try #require(try await backend.authenticate(try await users.addDevice("phone", of: "alice", now: now))), device: Changes.device(0x09), after: 0, limit: 0)
            #expect(renewed.feed != alice.feed.description, "a restore gives every user a new feed")
        }
    }
}

/// The one migration check (`Migrator.validate`), on each backend's own database: a
/// migration applied by a newer build, or one whose SQL was changed since it was applied,
/// refuses the start, saying which, and nothing is migrated.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct BackendMigrationCheckTests {
    enum Tampering: String, CaseIterable, Sendable {
        case newerMigration, changedMigration
    }

    @Test(arguments: ServiceBackend.allCases, Tampering.allCases)
    func aSchemaThisBuildDidNotApplyIsRefused(kind: ServiceBackend, tampering: Tampering) async throws {
        let statement = switch (kind, tampering) {
        case (.sqlite, .newerMigration): "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (999, 'from_the_future', 'x', '2099-01-01T00:00:00Z')"
        case (.sqlite, .changedMigration): "UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1"
        case (.postgres, .newerMigration): "INSERT INTO archive_server_migrations (version, name, checksum) VALUES (999, 'from_the_future', 'x')"
        case (.postgres, .changedMigration): "UPDATE archive_server_migrations SET checksum = 'edited' WHERE version = 1"
        }
        let refusal: String
        switch kind {
        case .sqlite:
            let directory = try TemporaryDirectory()
            let path = directory.path("server.sqlite3")
            try ServerDatabase(path: path).close()
            let database = try Database(path: path)
            try database.execute(statement)
            let error = try #require(throws: MigrationError.self) { try ServerDatabase(path: path) }
            refusal = "\(error)"
        case .postgres:
            let url = try TestPostgres.server().newDatabase()
            var logger = Logger(label: "tests")
            logger.logLevel = .critical
            try await PostgresSyncStorage.with(try PostgresLocation(url: url), logger: logger) { _ in }
            _ = try TestPostgres.server().query(statement, in: url)
            let error = await #expect(throws: MigrationError.self) {
                try await PostgresSyncStorage.with(try PostgresLocation(url: url), logger: logger) { _ in }
            }
            refusal = error.map { "\($0)" } ?? ""
        }
        switch tampering {
        case .newerMigration: #expect(refusal.contains("written by a newer version") && refusal.contains("migration 999"), "\(refusal)")
        case .changedMigration: #expect(refusal.contains("applied migration 1") && refusal.contains("different SQL"), "\(refusal)")
        }
    }
}
