import ArchiveSyncClient
import ArchiveHTTP
import ArchiveStorage
import ArchiveSyncWire
import Foundation
import Synchronization
import TestSupport
import Testing
import ArchiveSyncModel

/// Devices whose clocks are wrong or jump, syncing through the real `archive-server` on both
/// backends: they converge on the merge rule's answer without a reset, and a change made
/// after seeing another wins over it whatever the wall clocks say.
@Suite(.timeLimit(.minutes(5)))
struct ServiceClockTests {
    static let hour: Int64 = 3_600_000
    static let day = 24 * hour
    /// A year before now: the devices' clocks run from there (the offline laptop's six-month
    /// jump included) and stay behind the service's, which refuses stamps over a day ahead.
    static let start: Int64 = WallClock.system() - 365 * day

    /// A phone whose clock runs five hours ahead stores ten favorites; a laptop on time pulls
    /// them, then removes five and changes five. The laptop's changes were made after it saw
    /// the phone's, so they win everywhere, though its wall clock reads five hours earlier:
    /// the hybrid timestamps carry what each device has seen (seen red with the laptop's
    /// clock not moved past what it pulled).
    @Test(arguments: ServiceBackend.allCases)
    func aClockHoursAheadDoesNotReorderChangesMadeAfterSeeingIt(backend: ServiceBackend) async throws {
        let server = try ServiceProcess(backend)
        let phoneClock = ManualClock(Self.start + 5 * Self.hour), laptopClock = ManualClock(Self.start)
        let phone = try ArchiveDatabase(path: ArchiveDatabase.inMemoryPath, wallClock: { phoneClock.now() })
        let laptop = try ArchiveDatabase(path: ArchiveDatabase.inMemoryPath, wallClock: { laptopClock.now() })
        let transport = try RecordingTransport(server: server.url, devices: [phone, laptop], tokens: try server.addUserWithDevices("alice"))
        var made: [FavoriteChange] = []
        for device in [phone, laptop] { _ = try await ServerSyncSession.run(device, through: transport) }

        try phone.favorites.create(contentsOf: (1...10).map { Self.object($0, "phone") })
        made += try Self.ownChanges(of: phone)
        _ = try await ServerSyncSession.run(phone, through: transport)
        _ = try await ServerSyncSession.run(laptop, through: transport)
        #expect(try laptop.favorites.allObjects().count == 10)

        laptopClock.advance(by: 1_000)
        let laptopBefore = try laptop.favorites.latestChangeSeq()
        for id in 1...5 { _ = try laptop.favorites.delete(id: id) }
        try laptop.favorites.create(contentsOf: (6...10).map { Self.object($0, "laptop, later") })
        made += try Self.ownChanges(of: laptop, since: laptopBefore)
        for device in [laptop, phone] { _ = try await ServerSyncSession.run(device, through: transport) }

        let expected = Dictionary(uniqueKeysWithValues: (6...10).map { ($0, Self.object($0, "laptop, later")) })
        #expect(MergeOracle.answer(made).favorites == expected, "the oracle disagrees with the test's own expectation")
        for (name, device) in [("phone", phone), ("laptop", laptop)] {
            let held = Dictionary(uniqueKeysWithValues: try device.favorites.allObjects().map { ($0.id, $0) })
            #expect(held == expected, "\(backend): the \(name) holds \(held.keys.sorted()) with \(Set(held.values.map(\.introduction)))")
        }
        #expect(transport.anomalies.isEmpty, "\(backend): \(transport.anomalies)")
    }

    /// Three devices; the laptop syncs, then stays offline for six months while the phone and
    /// the tablet change and remove favorites every week (some of them ones the laptop holds).
    /// Its clock then jumps six months ahead; it makes a change and syncs. No reset, no
    /// refused push: the service kept every tombstone the laptop had not pulled, and all three
    /// devices and a newcomer end with the merge rule's answer over every change made.
    @Test(arguments: ServiceBackend.allCases)
    func aDeviceOfflineForMonthsConvergesWithoutAReset(backend: ServiceBackend) async throws {
        let server = try ServiceProcess(backend)
        var random = SeededGenerator(seed: 4_848)
        let clocks = [ManualClock(Self.start), ManualClock(Self.start + 2 * Self.hour), ManualClock(Self.start - Self.hour)]
        let devices = try clocks.map { clock in try ArchiveDatabase(path: ArchiveDatabase.inMemoryPath, wallClock: { clock.now() }) }
        let tokens = try server.addUserWithDevices("alice")
        let transport = try RecordingTransport(server: server.url, devices: devices, tokens: tokens)
        let (phone, tablet, laptop) = (devices[0], devices[1], devices[2])
        var made: [FavoriteChange] = []
        func change(_ device: ArchiveDatabase, _ work: () throws -> Void) throws {
            let before = try device.favorites.latestChangeSeq()
            try work()
            made += try Self.ownChanges(of: device, since: before)
        }

        try change(laptop) { try laptop.favorites.create(contentsOf: (1...20).map { Self.object($0, "laptop") }) }
        for device in devices { _ = try await ServerSyncSession.run(device, through: transport) }
        // Made offline: pushed only six months later.
        try change(laptop) { _ = try laptop.favorites.delete(id: 20) }

        for week in 1...26 {
            for (index, device) in [phone, tablet].enumerated() {
                clocks[index].advance(by: 7 * Self.day)
                try change(device) {
                    let id = Int.random(in: 1...40, using: &random)
                    if Bool.random(using: &random) {
                        try device.favorites.create(Self.object(id, "week \(week)"))
                    } else {
                        _ = try device.favorites.delete(id: id)
                    }
                }
                _ = try await ServerSyncSession.run(device, through: transport)
            }
        }
        // The laptop's clock jumps to now: six months on.
        clocks[2].advance(by: 182 * Self.day)
        try change(laptop) { try laptop.favorites.create(Self.object(41, "back online")) }
        for device in [laptop, phone, tablet] { _ = try await ServerSyncSession.run(device, through: transport) }

        let answer = MergeOracle.answer(made).favorites
        #expect(answer[41] != nil)
        for (name, device) in [("phone", phone), ("tablet", tablet), ("laptop", laptop)] {
            let held = Dictionary(uniqueKeysWithValues: try device.favorites.allObjects().map { ($0.id, $0) })
            #expect(held == answer, "\(backend): the \(name) differs from the merge rule's answer: holds \(held.keys.sorted()), the rule \(answer.keys.sorted())")
        }
        let newcomer = try ArchiveDatabase(path: ArchiveDatabase.inMemoryPath, wallClock: { Self.start })
        try transport.add(newcomer, tokens: tokens)
        _ = try await ServerSyncSession.run(newcomer, through: transport)
        #expect(Dictionary(uniqueKeysWithValues: try newcomer.favorites.allObjects().map { ($0.id, $0) }) == answer, "\(backend): the service differs")
        #expect(transport.anomalies.isEmpty, "\(backend): \(transport.anomalies)")
    }

    static func object(_ id: Int, _ introduction: String) -> StoredArchiveObject {
        StoredArchiveObject(
            id: id, photoUrl: "https://p/\(id).jpg", category: "和食", dishName: "料理 \(id)", shopName: "店",
            introduction: introduction, storedAt: Date(millisecondsSince1970: start))
    }

    /// The changes `device` made itself after feed seq `seq`.
    static func ownChanges(of device: ArchiveDatabase, since seq: Int64 = 0) throws -> [FavoriteChange] {
        try ServerConvergenceTests.feed(device, since: seq)
    }
}

/// The real HTTP transport, recording what a sync should never meet when clocks are wrong:
/// a pull that resets the device, a push refused as stale.
/// Each device syncs with its own token (``DeviceTokens``).
final class RecordingTransport: SyncTransport {
    let server: String
    private let transports = Mutex<[DeviceID: HTTPSyncTransport]>([:])
    private let seen = Mutex<[String]>([])

    init(server: String, devices: [ArchiveDatabase], tokens: DeviceTokens) throws {
        self.server = server
        for device in devices { try add(device, tokens: tokens) }
    }

    /// Lets `device` sync, with its own token.
    func add(_ device: ArchiveDatabase, tokens: DeviceTokens) throws {
        let id = try device.favorites.deviceID()
        let http = try HTTPSyncTransport(server: server, token: try tokens(id))
        transports.withLock { $0[id] = http }
    }

    private func http(_ device: DeviceID) throws -> HTTPSyncTransport {
        guard let http = transports.withLock({ $0[device] }) else { throw SyncTransportError.unauthorized(server: "device \(device) has no token in this test") }
        return http
    }

    /// What went wrong, in order.
    var anomalies: [String] { seen.withLock { $0 } }

    func pull(device: DeviceID, cursor: Int64, limit: Int) async throws -> SyncPullResponse {
        let page = try await http(device).pull(device: device, cursor: cursor, limit: limit)
        if page.reset { seen.withLock { $0.append("device \(device) was reset at cursor \(cursor)") } }
        return page
    }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        do {
            guard let device = DeviceID(hex: request.device) else { throw SyncTransportError.badAnswer(server: server, reason: "device") }
            return try await http(device).push(request)
        } catch {
            seen.withLock { $0.append("a push of device \(request.device) was refused: \(error)") }
            throw error
        }
    }
}
