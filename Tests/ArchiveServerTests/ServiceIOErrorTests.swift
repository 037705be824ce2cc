import ArchiveServerSQLite
import ArchiveServer
import ArchiveSyncWire
import Foundation
import SQLite
import TestSupport
import Testing

/// An I/O error or a full disk at every write, sync, truncation and file creation that
/// `archive-server`'s SQLite backend makes while it answers pushes and pulls, on the real
/// binary (``FaultInjection``): the request that meets it is answered `503` (an I/O error)
/// or `507` (a full disk), with `Retry-After` and nothing of the server's inside; the same
/// request sent again is answered `200`; and at the end the file passes SQLite's integrity
/// check and holds every change, none twice. RELIABILITY.md, case 92. (Seen red with the
/// backend's I/O errors answered `500`.)
@Suite(.blockingWork, .timeLimit(.minutes(8)))
struct ServiceIOErrorTests {
    static let phone = Changes.device(0x51)
    static let laptop = Changes.device(0x52)

    /// The requests, in order: a phone's push, the laptop's pull and push, the phone's pull.
    static func requests(_ server: ServiceProcess, tokens: (phone: String, laptop: String)) throws -> [() throws -> RawHTTPConnection.Response] {
        [
            { try server.push((1...5).map { Changes.stored($0, at: 1_000, by: phone) }, device: phone, through: 5, token: tokens.phone) },
            { try server.pull(device: laptop, token: tokens.laptop).0 },
            { try server.push([Changes.removed(3, at: 2_000, by: laptop), Changes.stored(40, at: 2_000, by: laptop)], device: laptop, through: 2, seen: 5, token: tokens.laptop) },
            { try server.pull(device: phone, cursor: 5, token: tokens.phone).0 },
        ]
    }

    /// The server on a copy of `template`'s database under `directory`, with the fault
    /// library's `environment`.
    static func start(_ template: TemporaryDirectory, in directory: TemporaryDirectory, environment: [String: String]) throws -> ServiceProcess {
        try FileManager.default.copyItem(atPath: template.path("server.sqlite3"), toPath: directory.path("server.sqlite3"))
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try ServiceProcess(.sqlite, database: directory.path("server.sqlite3"), directory: directory, launcher: ["/usr/bin/env"] + variables)
    }

    @Test func everyWriteOfAPushOrAPullMayFailAndTheSameRequestThenLands() throws {
        // The user, added before the server starts (its database then needs no migration).
        let template = try TemporaryDirectory()
        let added = try ChildProcess.run(
            ServiceProcess.executable.path, ["users", "add", "ann", "--database", template.path("server.sqlite3")],
            environment: ServiceProcess.environment(template), timeout: Deadline.standard)
        try #require(added.status == 0, "\(added.stderr)")
        let laptopAdded = try ChildProcess.run(
            ServiceProcess.executable.path, ["devices", "add", "ann", "laptop", "--database", template.path("server.sqlite3")],
            environment: ServiceProcess.environment(template), timeout: Deadline.standard)
        try #require(laptopAdded.status == 0, "\(laptopAdded.stderr)")
        // Each device's own token (every run starts from this template: neither bound yet).
        let tokens = (phone: added.stdout.trimmingCharacters(in: .whitespacesAndNewlines), laptop: laptopAdded.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let logs = try TemporaryDirectory()

        // Counted once: the calls the start makes, the ones the requests make, and the stop's
        // (the database closed after the last request: its checkpoint).
        let counting = try TemporaryDirectory()
        let log = logs.path("count.log")
        let whole = try Self.start(template, in: counting, environment: try FaultInjection.environment(directory: counting.url.path, at: 0, log: log))
        let started = FaultInjection.calls(inLog: log).count
        for request in try Self.requests(whole, tokens: tokens) { try #require(try request().status == 200) }
        let calls = FaultInjection.calls(inLog: log).count
        let expected = try Self.favorites(whole)
        let stopped = FaultInjection.calls(inLog: log).count
        #expect(calls - started >= 10, "the requests made \(calls - started) calls")
        #expect(stopped > calls, "the stop made no call: the database was not closed before the process ended")

        if ProcessInfo.processInfo.environment["POWER_LOSS_REPORT"] == "1" { print("I/O errors in archive-server: \(calls - started) calls, \(stopped - calls) at the stop") }
        var refusals: [Int: Int] = [:]
        for number in (started + 1)...max(started + 1, stopped) {
            let code: FaultInjection.Code = number % 2 == 0 ? .enospc : .eio
            let directory = try TemporaryDirectory()
            let log = logs.path("\(number).log")
            let server = try Self.start(template, in: directory, environment: try FaultInjection.environment(directory: directory.url.path, at: number, code: code, log: log))
            for (index, request) in try Self.requests(server, tokens: tokens).enumerated() {
                let answer = try request()
                guard answer.status != 200 else { continue }
                let failed = FaultInjection.calls(inLog: log).first { $0.failed }.map { "\($0)" } ?? "no call"
                refusals[answer.status, default: 0] += 1
                #expect(answer.status == (code == .enospc ? 507 : 503) || answer.status == 503,
                        "request \(index) at \(failed) (\(code.rawValue)): \(answer.status) \(answer.text)")
                #expect(answer.header("Retry-After") != nil, "\(answer.status) without Retry-After")
                // Nothing of the server's inside: not its file's path, not SQLite's words.
                #expect(!answer.text.contains(directory.url.path) && !answer.text.contains("SQLite"), "\(answer.text)")
                let again = try request()
                #expect(again.status == 200, "request \(index) sent again after \(failed) (\(code.rawValue)): \(again.status) \(again.text)")
            }
            #expect(try Self.favorites(server) == expected, "after call \(number) failed with \(code.rawValue)")
            #expect(FaultInjection.calls(inLog: log).contains { $0.failed }, "call \(number) was not made")
        }
        // Both answers were seen (a write of a page fails with 507 on ENOSPC, a sync with 503).
        #expect(refusals[503] ?? 0 > 0 && refusals[507] ?? 0 > 0, "\(refusals)")
    }

    /// Stops `server` and reads its file: SQLite's integrity check, then each favorite of
    /// the user (its dish name, or "removed") with its seq, every seq once.
    static func favorites(_ server: ServiceProcess) throws -> [Int: String] {
        _ = server.stop()
        let database = try ServerDatabase(path: server.database)
        return try database.queue.read { db in
            let integrity = try db.fetchAll("PRAGMA integrity_check") { try $0.column(String.self, at: 0) }
            guard integrity == ["ok"] else { throw ServiceFailed(stderr: "integrity_check: \(integrity)") }
            let rows = try db.fetchAll("SELECT id, removed, dish_name, seq FROM user_favorites") { row in
                (try row.int(at: 0), try row.int(at: 1), try row.column(String?.self, at: 2), try row.int64(at: 3))
            }
            guard Set(rows.map(\.3)).count == rows.count else { throw ServiceFailed(stderr: "a seq given twice: \(rows)") }
            return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1 == 1 ? "removed" : $0.2 ?? "?") })
        }
    }
}
