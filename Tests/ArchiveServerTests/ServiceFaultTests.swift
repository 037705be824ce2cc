import ArchiveStorage
import ArchiveSyncWire
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing
import ArchiveSyncModel

/// The service broken on purpose, on the real binary and both backends.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServiceFaultTests {
    /// A device pushes batch after batch while the server is killed (SIGKILL) under it, three
    /// times: after each restart on the same database, every change of every push the
    /// device saw acknowledged is there, and the push that was in flight, sent again, lands
    /// once (its changes applied or already held, none twice).
    @Test(arguments: ServiceBackend.allCases)
    func acknowledgedPushesSurviveAKilledServer(backend: ServiceBackend) throws {
        var random = SeededGenerator(seed: 48)
        var server = try ServiceProcess(backend)
        let token = try server.addUser("alice"), readerToken = try server.addDevice("reader", of: "alice")
        let phone = Changes.device(0x48), reader = Changes.device(0x49)
        var acknowledged: Set<Int> = []
        var nextID = 1
        for round in 0..<3 {
            let killAfter = Int.random(in: 3...12, using: &random)
            var acks = 0
            var inFlight: [FavoriteChange] = []
            let killed = Atomic<Bool>(false)
            while true {
                let batch = (0..<Int.random(in: 1...40, using: &random)).map { offset in
                    Changes.stored(nextID + offset, at: 1_000 + Int64(nextID + offset), by: phone, text: "r\(round)")
                }
                nextID += batch.count
                // A minute's wait: a push left unanswered that long is a hang, told apart from
                // one the kill cut short (its connection closed or refused).
                let answer: RawHTTPConnection.Response?
                var failure: (any Error)?
                do {
                    answer = try server.push(batch, device: phone, through: Int64(nextID), token: token, timeout: Deadline.standard)
                } catch {
                    answer = nil
                    failure = error
                }
                if answer?.status == 200 {
                    acknowledged.formUnion(batch.map(\.id))
                    acks += 1
                } else {
                    // The push the kill cut short: nothing else may end a push here.
                    #expect(answer == nil, "\(backend) round \(round): answered \(answer?.status ?? 0) before any kill: \(answer?.text ?? "")")
                    if case RawHTTPConnection.Failure.timedOut = failure ?? CancellationError() {
                        Issue.record("\(backend) round \(round): a push went unanswered for \(Deadline.standard): the server hung")
                    }
                    let wasKilled = killed.load(ordering: .relaxed)
                    #expect(wasKilled, "\(backend) round \(round): a push failed with the server not killed: \(String(describing: failure))")
                    inFlight = batch
                    if !killed.exchange(true, ordering: .relaxed) { server.process.signal(SIGKILL) }
                    break
                }
                if acks == killAfter, !killed.exchange(true, ordering: .relaxed) {
                    // Killed from another thread while the next pushes are sent.
                    let pid = server.process.pid
                    Thread.detachNewThread { kill(pid, SIGKILL) }
                }
                try #require(acks < 10_000, "the server was never killed")
            }
            try #require(server.process.wait(orKillAfter: Deadline.standard) != nil, "the killed server did not end")
            server = try ServiceProcess(backend, database: server.database, directory: server.directory)
            // Every acknowledged change is there.
            var held: Set<Int> = []
            var cursor: Int64 = 0
            while true {
                let (response, page) = try server.pull(device: reader, cursor: cursor, token: readerToken)
                let read = try #require(page, "pull answered \(response.status): \(response.text)")
                held.formUnion(read.changes.map(\.id))
                cursor = read.cursor
                if !read.hasMore { break }
            }
            #expect(acknowledged.isSubset(of: held), "\(backend) round \(round): \(acknowledged.subtracting(held).count) acknowledged changes lost")
            // The push that was in flight, sent again, lands once.
            let again = try server.push(inFlight, device: phone, through: Int64(nextID), token: token)
            #expect(again.status == 200, "\(again.text)")
            let summary = try JSONDecoder().decode(SyncPushResponse.self, from: Data(again.body))
            #expect(summary.applied + summary.alreadyHeld == inFlight.count && summary.superseded == 0, "\(summary)")
            acknowledged.formUnion(inFlight.map(\.id))
        }
        // Each change once: the user's favorites are exactly the acknowledged ones.
        let listed = try server.admin(["users", "list", "--json"])
        let users = (try listed.json() as? [String: Any])?["users"] as? [[String: Any]]
        #expect(users?.first?["favorites"] as? Int == acknowledged.count, "\(listed.stdout)")
    }

    /// Four devices push batch after batch while PostgreSQL is stopped (a fast shutdown: its
    /// connections ended under the queries) and started again, `archive-server` left
    /// running. While it is down every push is answered, within the request timeout, `503`
    /// with `Retry-After` and a reason, never left hanging nor answered `500`; once it is back,
    /// the same pool serves pushes again, the refused batches sent again land, and every
    /// acknowledged change is there (seen red with a `ROLLBACK` written to the connection that
    /// closed under a push and no request deadline: that push's answer never came).
    @Test func aPostgresRestartUnderLoadFailsRequestsCleanlyThenRecovers() throws {
        let postgres = try TestPostgres.dedicated()
        // A request deadline of 5 s: short beside the devices' 30 s wait, long enough that a
        // saturated machine's slow pushes with PostgreSQL up are not refused for it.
        let server = try ServiceProcess(
            .postgres, arguments: ["--request-timeout", "5", "--postgres-connections", "4"], database: try postgres.newDatabase())
        _ = try server.addUser("alice")
        // Each pusher's own token, and the reader's.
        let tokens = try (0..<4).map { try server.addDevice("pusher-\($0)", of: "alice") }
        let readerToken = try server.addDevice("reader", of: "alice")
        let url = server.url
        // 0: PostgreSQL up, 1: stopped, 2: started again, 3: the devices stop.
        let phase = Atomic<Int>(0)
        let log = Mutex(PushLog())
        let devices = DispatchGroup()
        for pusher in 0..<4 {
            devices.enter()
            Thread.detachNewThread {
                defer { devices.leave() }
                let device = Changes.device(UInt8(0x60 + pusher)), token = tokens[pusher]
                var next = pusher * 1_000_000 + 1
                var batch: [FavoriteChange] = []
                while phase.load(ordering: .relaxed) < 3 {
                    if batch.isEmpty {
                        batch = (0..<5).map { Changes.stored(next + $0, at: 1_000 + Int64(next + $0), by: device) }
                        next += 5
                    }
                    let during = phase.load(ordering: .relaxed)
                    do {
                        // A hang shows as no answer: the server's deadline is 5 s, this wait 30.
                        let answer = try ServiceProcess.push(url, batch, device: device, token: token, timeout: .seconds(30))
                        log.withLock { $0.record(answer, batch: batch, during: during) }
                        if answer.status == 200 { batch = [] }
                    } catch {
                        log.withLock { $0.faults.append("no answer during phase \(during): \(error)") }
                    }
                }
            }
        }
        defer {
            phase.store(3, ordering: .relaxed)
            devices.wait()
        }
        #expect(Deadline.poll(every: .milliseconds(20)) { log.withLock { $0.acknowledgedIn[0] } >= 8 }, "no push was acknowledged")
        try postgres.stop()
        phase.store(1, ordering: .relaxed)
        // Counted by the phase each push was sent in: a slow push sent before the stop is no
        // refusal of a stopped PostgreSQL.
        #expect(Deadline.poll(every: .milliseconds(20)) { log.withLock { $0.refusedIn[1] } >= 8 }, "pushes went unanswered with PostgreSQL stopped")
        try postgres.start()
        phase.store(2, ordering: .relaxed)
        #expect(
            Deadline.poll(every: .milliseconds(20)) { log.withLock { $0.acknowledgedIn[2] } >= 8 },
            "no push was acknowledged after PostgreSQL came back: \(log.withLock { $0.faults.suffix(3) })")
        phase.store(3, ordering: .relaxed)
        devices.wait()

        let pushes = log.withLock { $0 }
        #expect(pushes.faults.isEmpty, "\(pushes.faults.count) pushes answered neither 200 nor a clean 503: \(pushes.faults.prefix(5))")
        #expect(pushes.refusedIn[1] >= 8, "refused by phase: \(pushes.refusedIn)")
        let health = try server.call("GET", SyncAPI.healthPath)
        #expect(health.status == 200, "the server did not recover: \(health.status) \(health.text)")
        let held = try Self.pullAll(server, token: readerToken, device: Changes.device(0x7F))
        #expect(pushes.acknowledged.isSubset(of: held), "\(pushes.acknowledged.subtracting(held).count) acknowledged changes lost")
    }

    /// The server's SQLite database on a 1 MB tmpfs (a private mount namespace): a device
    /// pushes large batches until the disk is full. Each refused push is answered `507` with
    /// `Retry-After` and a reason, nothing half-written; the server keeps running; once the
    /// disk is grown (remounted at 64 MB) the refused batch sent again lands, and every
    /// acknowledged change is there (seen red with the full disk answered `500`).
    @Test func aFullDiskRefusesPushesCleanlyAndTheServiceResumesWhenSpaceReturns() throws {
        if let missing = MountSupport.missing { throw MountUnavailable(description: missing) }
        let directory = try TemporaryDirectory()
        let disk = directory.path("disk"), seed = directory.path("seed.sqlite3")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        // The user is added to a database outside the mount, copied onto it before the server starts.
        let added = try ChildProcess.run(
            ServiceProcess.executable.path, ["users", "add", "alice", "--database", seed],
            environment: ServiceProcess.environment(directory), timeout: Deadline.standard)
        try #require(added.status == 0, "\(added.stderr)")
        let token = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The launcher: mounts the tmpfs, copies the database on it, runs the server; SIGUSR1
        // grows the disk (says "grown"), SIGTERM stops the server.
        let script = """
            disk=$0; seed=$1; shift
            mount -t tmpfs -o size=1m tmpfs "$disk" || exit 90
            cp "$seed" "$disk/server.sqlite3" || exit 91
            "$@" & server=$!
            trap 'mount -o remount,size=64m "$disk" && echo grown' USR1
            trap 'kill -TERM $server' TERM
            while kill -0 $server 2>/dev/null; do wait $server; done
            """
        let server = try ServiceProcess(
            .sqlite, database: disk + "/server.sqlite3", directory: directory,
            launcher: [MountSupport.unshare] + MountSupport.namespaceArguments + ["sh", "-c", script, disk, seed])
        let phone = Changes.device(0x70)
        let padding = String(repeating: "満", count: 150)
        var next = 1
        var acknowledged: Set<Int> = []
        var refused: [FavoriteChange] = []
        while refused.isEmpty {
            let batch = (0..<100).map { Changes.stored(next + $0, at: 1_000 + Int64(next + $0), by: phone, text: padding) }
            next += batch.count
            let answer = try server.push(batch, device: phone, token: token)
            switch answer.status {
            case 200: acknowledged.formUnion(batch.map(\.id))
            default:
                #expect(answer.status == 507, "\(answer.status): \(answer.text)")
                #expect(answer.header("Retry-After") != nil && answer.text.contains("disk is full"), "\(answer.text)")
                // The server's inside stays in its log: not its file's path, not SQLite's words.
                #expect(!answer.text.contains(disk) && !answer.text.contains("SQLite"), "\(answer.text)")
                refused = batch
            }
            try #require(next < 10_000, "the 1 MB disk never filled")
        }
        #expect(!acknowledged.isEmpty, "the first push was already refused: the disk is too small for the test")
        // Refused again while full; the server answers reads.
        #expect(try server.push(refused, device: phone, token: token).status == 507)
        #expect(try server.call("GET", SyncAPI.healthPath).status == 200)

        server.process.signal(SIGUSR1)
        #expect(server.process.nextLine() == "grown")
        let again = try server.push(refused, device: phone, token: token)
        #expect(again.status == 200, "\(again.status): \(again.text)")
        acknowledged.formUnion(refused.map(\.id))
        let held = try Self.pullAll(server, token: token, device: phone)
        #expect(held == acknowledged, "\(acknowledged.subtracting(held).count) acknowledged changes lost, \(held.subtracting(acknowledged).count) refused ones kept")
    }

    /// Every favorite ID in `server`'s feed for the user of `token`, read from its start by
    /// `device` (one the token serves).
    static func pullAll(_ server: ServiceProcess, token: String, device: DeviceID) throws -> Set<Int> {
        var held: Set<Int> = []
        var cursor: Int64 = 0
        while true {
            let (response, page) = try server.pull(device: device, cursor: cursor, token: token)
            guard let read = page else { throw ServiceFailed(stderr: "pull answered \(response.status): \(response.text)") }
            held.formUnion(read.changes.map(\.id))
            cursor = read.cursor
            if !read.hasMore { return held }
        }
    }
}

/// What the devices of ``ServiceFaultTests/aPostgresRestartUnderLoadFailsRequestsCleanlyThenRecovers()`` met.
struct PushLog {
    var acknowledged: Set<Int> = []
    /// Pushes acknowledged while PostgreSQL was up, stopped, up again.
    var acknowledgedIn = [0, 0, 0, 0]
    /// Clean refusals by the phase the push was sent in: `503` with `Retry-After` and a
    /// reason that shows nothing of the server's inside (no SQLSTATE, no database URL).
    var refusedIn = [0, 0, 0, 0]
    /// Anything else: a `500`, a `503` without its headers, no answer.
    var faults: [String] = []

    mutating func record(_ answer: RawHTTPConnection.Response, batch: [FavoriteChange], during phase: Int) {
        if answer.status == 200 {
            acknowledged.formUnion(batch.map(\.id))
            acknowledgedIn[phase] += 1
        } else if answer.status == 503, answer.header("Retry-After") != nil, answer.text.contains("\"error\""),
            !answer.text.contains("SQLSTATE"), !answer.text.contains("host=") {
            refusedIn[phase] += 1
        } else {
            faults.append("\(answer.status) during phase \(phase): \(answer.text)")
        }
    }
}

/// No tmpfs can be mounted here (``MountSupport/missing``).
struct MountUnavailable: Error, CustomStringConvertible {
    let description: String
}
