import ArchiveServerStorage
import ArchiveSyncClient
import ArchiveServer
import ArchiveStorage
import ArchiveSyncWire
import Foundation
import SQLite
import Synchronization
import TestSupport
import Testing
import ArchiveSyncModel

/// The convergence harness run through the service: 2 to 5 devices of one user, each with
/// a clock of its own (hours apart), hundreds of random changes, random syncs with the
/// service (whole, pull only, with the push's answer lost so the device retries, or an
/// earlier push delivered again late; a hostile device's changes stamped far ahead or at
/// the last valid stamp, refused), then a final round. Oracle: every device holds the merge rule's answer over every change any
/// device made (TestSupport's ``MergeOracle``, written apart from ``FavoriteMerge``); the
/// service's tombstones go as the devices pull them.
///
/// The service here is the real backend of each kind (``SQLiteSyncBackend``, and
/// `PostgresSyncStorage` on the test's PostgreSQL) behind the wire format (each request
/// and answer goes through JSON), without sockets: `SyncAPITests` and `CLIServerSyncTests`
/// run the real binary.
///
/// Its cases run one at a time: each is a few seconds of CPU, and run all at once on a
/// loaded 2-core machine every case's clock ran as long as the whole suite (24 cases past
/// their 5-minute limit); one at a time, each case's limit bounds that case alone. They run
/// on threads of their own (`.blockingWork`): a case is long stretches of SQLite work
/// without a suspension, and on the cooperative pool (two threads here) it left one thread
/// for every other test's timers and answers.
@Suite(.serialized, .blockingWork, .timeLimit(.minutes(5)))
struct ServerConvergenceTests {
    static let seeds: [UInt64] = Array(1...12)

    /// The seeds of this run: the fixed ones, and `SYNC_SEEDS` more when asked.
    static var runSeeds: [UInt64] { ConvergenceSeeds.run(seeds) }

    static let start: Int64 = 1_790_000_000_000
    static let hour: Int64 = 3_600_000

    @Test(arguments: ServiceBackend.allCases, runSeeds)
    func devicesConvergeThroughTheService(backend kind: ServiceBackend, seed: UInt64) async throws {
        try await kind.withBackend(now: Self.start) { backend, devices, tombstoneCount in
            try await Self.converge(backend: backend, devices: devices, tombstoneCount: tombstoneCount, seed: seed, kind: kind)
        }
    }

    static func converge(backend: any SyncBackend, devices users: BackendDevices, tombstoneCount: () async throws -> Int, seed: UInt64, kind: ServiceBackend) async throws {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 2...5, using: &random)
        let clocks = (0..<count).map { _ in ManualClock(Self.start + Int64.random(in: -3...3, using: &random) * Self.hour) }
        let devices = try clocks.map { clock in try ArchiveDatabase(path: ArchiveDatabase.inMemoryPath, wallClock: { clock.now() }) }
        let transport = BackendTransport(devices: users)
        var made: [FavoriteChange] = []

        // Each device meets the service once before it is used (docs/SYNC-API.md: a device
        // the service has never seen cannot know of a tombstone it already dropped).
        for device in devices { _ = try await ServerSyncSession.run(device, through: transport) }

        for _ in 0..<Int.random(in: 150...300, using: &random) {
            let index = Int.random(in: 0..<count, using: &random)
            clocks[index].advance(by: Int64.random(in: 0...5_000, using: &random))
            let device = devices[index]
            let id = Int.random(in: 1...30, using: &random)
            let before = try device.favorites.latestChangeSeq()
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<35:
                try device.favorites.create(Self.object(id, ["紹介", "新しい紹介", "三つ目"].randomElement(using: &random)!))
            case 35..<60:
                _ = try device.favorites.delete(id: id)
            case 60..<65:
                let ids = Set((0..<5).map { _ in Int.random(in: 1...30, using: &random) })
                try device.favorites.create(contentsOf: ids.map { Self.object($0, "取り込み") })
            case 65..<85:
                _ = try await ServerSyncSession.run(device, through: transport, pageLimit: Int.random(in: 1...10, using: &random), pushLimit: Int.random(in: 1...10, using: &random))
            case 85..<88:
                // A delayed copy of an earlier push arrives now (a retry the network held back).
                try await transport.replayAnEarlierPush(using: &random)
            case 88..<93:
                // The push's answer is lost: the service applied it, the device does not know.
                transport.loseNextPushAnswer()
                do { _ = try await ServerSyncSession.run(device, through: transport) } catch is SyncTransportError {}
            case 93..<96:
                // A hostile or broken device pushes a change stamped far ahead of the service's
                // clock, or at the last valid stamp: refused whole (400), so no device's clock
                // is dragged there and the honest changes that follow still order as made.
                let hostile = DeviceID(bytes: [UInt8](repeating: 0xF0, count: 16))!
                let now = WallClock.system()
                let milliseconds = Bool.random(using: &random)
                    ? HybridTimestamp.maximumMilliseconds - Int64.random(in: 0...1_000, using: &random)
                    : now + HybridTimestamp.maximumLead + Int64.random(in: 60_000...(40 * 365 * 24 * Self.hour), using: &random)
                let stamp = ChangeStamp(time: HybridTimestamp(milliseconds: milliseconds, counter: 0xFFFF), device: hostile)
                let change = Bool.random(using: &random) ? FavoriteChange(id: id, stamp: stamp, state: .removed)
                    : FavoriteChange(id: id, stamp: stamp, state: .stored(Self.object(id, "from the future")))
                do {
                    _ = try await transport.push(SyncPushRequest(device: hostile, through: 1, seen: 0, changes: [WireChange(change)]))
                    Issue.record("seed \(seed) (\(kind)): a change stamped \(milliseconds - now) ms ahead was taken")
                } catch SyncTransportError.refused(_, 400, let message) {
                    #expect(message.contains("ahead of the server's clock by device \(hostile)"), "\(message)")
                }
            default:
                // Stopped after the pull: only this device moved.
                transport.failNextPush()
                do { _ = try await ServerSyncSession.run(device, through: transport) } catch is SyncTransportError {}
            }
            transport.clearFaults()
            made += try Self.feed(device, since: before)
        }
        // A final round: the first pass pushes everything, the second pulls it everywhere.
        for _ in 0..<2 {
            for device in devices { _ = try await ServerSyncSession.run(device, through: transport) }
        }

        let (answer, _) = MergeOracle.answer(made)
        for (index, device) in devices.enumerated() {
            let favorites = Dictionary(uniqueKeysWithValues: try device.favorites.allObjects().map { ($0.id, $0) })
            #expect(favorites == answer, "seed \(seed) (\(kind)): device \(index) of \(count) differs from the merge rule's answer")
        }
        // The service itself holds the answer: a new device that only pulls gets it.
        let newcomer = try ArchiveDatabase(path: ArchiveDatabase.inMemoryPath, wallClock: { Self.start })
        _ = try await ServerSyncSession.run(newcomer, through: transport)
        let served = Dictionary(uniqueKeysWithValues: try newcomer.favorites.allObjects().map { ($0.id, $0) })
        #expect(served == answer, "seed \(seed) (\(kind)): the service's favorites differ from the merge rule's answer")
        // Every device has pulled everything: the service keeps no tombstone.
        let tombstones = try await tombstoneCount()
        #expect(tombstones == 0, "seed \(seed) (\(kind)): the service kept \(tombstones) tombstones every device has pulled")
        #expect(made.count > 50, "seed \(seed): the run made only \(made.count) changes")
    }

    /// Eight devices of one user push changes to the same fifteen favorites at once, many
    /// with equal times: whatever order the backend runs the pushes in (PostgreSQL: in
    /// parallel transactions), it ends with the merge rule's answer.
    @Test(arguments: ServiceBackend.allCases)
    func concurrentPushesOfTheSameFavoritesEndWithTheRulesAnswer(backend kind: ServiceBackend) async throws {
        try await kind.withBackend(now: Self.start, connections: 8) { backend, devices, _ in
            var random = SeededGenerator(seed: 48)
            var pushes: [(device: DeviceID, batches: [[FavoriteChange]])] = []
            var signedIn: [AuthenticatedUser] = []
            for byte in UInt8(1)...8 {
                let device = DeviceID(bytes: [UInt8](repeating: byte, count: 16))!
                let batches = (0..<15).map { _ in
                    Set((0..<8).map { _ in Int.random(in: 1...15, using: &random) }).map { id in
                        let stamp = ChangeStamp(time: HybridTimestamp(milliseconds: Self.start + Int64.random(in: 0...20, using: &random)), device: device)
                        let state: FavoriteChange.State = Bool.random(using: &random)
                            ? .removed : .stored(Self.object(id, ["紹介", "新しい紹介", "三つ目"].randomElement(using: &random)!))
                        return FavoriteChange(id: id, stamp: stamp, state: state)
                    }
                }
                pushes.append((device, batches))
                signedIn.append(try await devices.user(for: device))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for ((device, batches), user) in zip(pushes, signedIn) {
                    group.addTask {
                        for batch in batches { _ = try await backend.push(batch, from: device, through: 0, seen: 0, for: user) }
                    }
                }
                try await group.waitForAll()
            }
            // What the service holds, read as a new device reads it.
            var held: [Int: FavoriteChange] = [:]
            var cursor: Int64 = 0
            let reader = DeviceID(bytes: [UInt8](repeating: 0xEE, count: 16))!
            let user = try await devices.user(for: reader)
            while true {
                let page = try await backend.pull(for: user, device: reader, after: cursor, limit: 7)
                for (index, wire) in page.changes.enumerated() { let change = try wire.change(index: index); held[change.id] = change }
                cursor = page.cursor
                if !page.hasMore { break }
            }
            let everything = pushes.flatMap { $0.batches.joined() }
            var favorites: [Int: StoredArchiveObject] = [:]
            for change in held.values { if case .stored(let object) = change.state { favorites[change.id] = object } }
            #expect(favorites == MergeOracle.answer(everything).favorites, "\(kind): the service's favorites differ from the merge rule's answer")
        }
    }

    static func object(_ id: Int, _ introduction: String) -> StoredArchiveObject {
        StoredArchiveObject(
            id: id, photoUrl: "https://p/\(id).jpg", category: "和食", dishName: "料理 \(id)", shopName: "店",
            introduction: introduction, storedAt: Date(millisecondsSince1970: start))
    }

    /// The changes a device made or received after `seq` that it made itself.
    static func feed(_ database: ArchiveDatabase, since seq: Int64) throws -> [FavoriteChange] {
        let own = try database.favorites.deviceID()
        var changes: [FavoriteChange] = []
        var cursor = seq
        while true {
            let page = try database.favorites.changes(since: cursor, limit: 50)
            changes += page.changes.map(\.change).filter { $0.stamp.device == own }
            cursor = page.lastSeq
            if !page.hasMore { return changes }
        }
    }
}

/// The service's backend behind the wire format: each request and answer is encoded to
/// JSON and decoded again, and checked as the HTTP front checks it.
final class BackendTransport: SyncTransport {
    let backend: any SyncBackend
    /// The user's devices, each signed in with its own token.
    let devices: BackendDevices
    private let faults = Mutex((loseAnswer: false, failPush: false))
    private let sent = Mutex<[SyncPushRequest]>([])

    init(devices: BackendDevices) {
        self.backend = devices.backend
        self.devices = devices
    }

    /// The next push is applied, then its answer lost.
    func loseNextPushAnswer() { faults.withLock { $0.loseAnswer = true } }
    /// The next push fails before the service sees it.
    func failNextPush() { faults.withLock { $0.failPush = true } }
    /// No fault waits (a sync that had nothing to push did not meet it).
    func clearFaults() { faults.withLock { $0 = (false, false) } }

    func pull(device: DeviceID, cursor: Int64, limit: Int) async throws -> SyncPullResponse {
        try Self.roundTrip(try await backend.pull(for: try await devices.user(for: device), device: device, after: cursor, limit: limit))
    }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        let fault = faults.withLock { faults in
            defer { faults = (false, false) }
            return faults
        }
        if fault.failPush { throw SyncTransportError.unreachable(server: "test", reason: "the network went away") }
        let received = try Self.roundTrip(request)
        guard let device = DeviceID(hex: received.device) else { throw SyncTransportError.badAnswer(server: "test", reason: "device") }
        let answer: SyncPushResponse
        do {
            let changes = try received.checkedChanges(receivedAt: WallClock.system())
            answer = try await backend.push(changes, from: device, through: received.through, seen: received.seen, for: try await devices.user(for: device))
        } catch let error as SyncWireError {
            // As the HTTP front answers them: a refused batch is a 400, a stale push a 409;
            // anything else fails the test as it is.
            throw SyncTransportError.refused(server: "test", status: 400, message: error.description)
        } catch let error as ServerStorageError {
            guard case .stalePush = error else { throw error }
            throw SyncTransportError.refused(server: "test", status: 409, message: error.description)
        }
        sent.withLock { $0.append(received) }  // taken: a copy of it may come again later
        if fault.loseAnswer { throw SyncTransportError.unreachable(server: "test", reason: "the answer was lost") }
        return try Self.roundTrip(answer)
    }

    /// Delivers one of the pushes sent so far again, as the service would receive a copy
    /// the network held back.
    func replayAnEarlierPush(using random: inout SeededGenerator) async throws {
        let all = sent.withLock { $0 }
        guard let request = all.randomElement(using: &random), let device = DeviceID(hex: request.device) else { return }
        do {
            _ = try await backend.push(
                try request.checkedChanges(receivedAt: WallClock.system()), from: device, through: 0, seen: request.seen,
                for: try await devices.user(for: device))
        } catch ServerStorageError.stalePush {
            // Refused: it was made before tombstones the service has dropped since.
        }
    }

    private static func roundTrip<Value: Codable>(_ value: Value) throws -> Value {
        try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value))
    }
}
