import ArchiveStorage
import ArchiveSyncModel
import Foundation
import TestSupport
import Testing

/// An I/O error or a full disk at every write, sync, truncation, rename, link and file
/// creation of `archive` commands, on the real binary (``FaultInjection``): the database's
/// files, an export's temporary file and rename, an import's new database file, the action
/// log. At each call in turn the command either succeeds, with what it acknowledged on
/// disk, or exits 1 saying what failed in one line that names the file; the database then
/// passes `check` and holds the state before the command or after it (whole), and a file
/// the command replaces or creates is as it was, or whole. RELIABILITY.md, case 91.
///
/// By default each call but three in four of SQLite's page writes fails, with one error,
/// `EIO` and `ENOSPC` in turn; `POWER_LOSS_EXHAUSTIVE=1` fails every call with both.
@Suite(.blockingWork, .timeLimit(.minutes(8)))
struct CLIIOErrorTests {
    /// What the test's directory holds after a command.
    struct Outcome: CustomStringConvertible {
        let result: ChildProcess.Result
        let call: FaultInjection.Call?
        let code: FaultInjection.Code
        var failed: Bool { result.status != 0 }
        var description: String {
            "\(call.map { "\($0)" } ?? "no call") failed with \(code.rawValue): status \(result.status), \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }

    /// Runs `arguments` in a copy of `prepare`'s directory once per counted call, that call
    /// failed; `verify` checks each outcome (the directory as the command left it). Returns
    /// how many calls there were.
    @discardableResult
    func everyCall(
        prepare: (TemporaryDirectory) throws -> Void, arguments: (TemporaryDirectory) -> [String],
        verify: (TemporaryDirectory, Outcome) throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        let template = try TemporaryDirectory()
        try prepare(template)
        let logs = try TemporaryDirectory()
        let counting = try template.copy()
        let log = logs.path("count.log")
        let cli = try CLI()
        let whole = try ChildProcess.run(
            CLI.executable.path, arguments(counting),
            environment: cli.environment(try FaultInjection.environment(directory: counting.url.path, at: 0, log: log)))
        #expect(whole.status == 0, "the command failed with nothing injected: \(whole.stderr)", sourceLocation: sourceLocation)
        try verify(counting, Outcome(result: whole, call: nil, code: .eio))
        let counted = FaultInjection.calls(inLog: log)
        #expect(!counted.isEmpty, "the command made no call under its directory", sourceLocation: sourceLocation)
        let exhaustive = ProcessInfo.processInfo.environment["POWER_LOSS_EXHAUSTIVE"] == "1"
        // Every sync, truncation, rename, link, creation and plain write; one in four of
        // SQLite's page writes (`pwrite64`, most of the calls, each like the next).
        let tried = counted.filter { exhaustive || $0.operation != "pwrite64" || $0.number % 4 == 0 }
        if ProcessInfo.processInfo.environment["POWER_LOSS_REPORT"] == "1" {
            print("I/O errors in the binary: \(arguments(counting).prefix(2).joined(separator: " ")): \(counted.count) calls, \(tried.count * (exhaustive ? 2 : 1)) failures")
        }
        for number in tried.map(\.number) {
            let codes: [FaultInjection.Code] = exhaustive ? FaultInjection.Code.allCases : [number % 2 == 0 ? .enospc : .eio]
            for code in codes {
                let directory = try template.copy()
                let log = logs.path("\(number)-\(code.rawValue).log")
                let result = try ChildProcess.run(
                    CLI.executable.path, arguments(directory),
                    environment: cli.environment(try FaultInjection.environment(directory: directory.url.path, at: number, code: code, log: log)))
                let call = FaultInjection.calls(inLog: log).first { $0.failed }
                let outcome = Outcome(result: result, call: call, code: code)
                #expect(call != nil, "call \(number) was not made: \(outcome)", sourceLocation: sourceLocation)
                #expect(result.status == 0 || result.status == 1, "\(outcome)", sourceLocation: sourceLocation)
                if outcome.failed {
                    let message = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
                    #expect(message.hasPrefix("Error: ") && !message.contains("\n"), "not one line: \(outcome)", sourceLocation: sourceLocation)
                    #expect(message.contains(directory.url.path), "the message names no file: \(outcome)", sourceLocation: sourceLocation)
                }
                do {
                    try verify(directory, outcome)
                } catch {
                    Issue.record("\(outcome): \(error)", sourceLocation: sourceLocation)
                }
            }
        }
        return counted.count
    }

    /// The favorites' IDs in the database at `path`, once it passes its check.
    static func favorites(_ path: String) throws -> Set<Int> {
        let database = try ArchiveDatabase(path: path)
        let report = try database.integrityReport()
        guard report.isOK else { throw VerifyFailure("check failed: \(report.problems)") }
        return Set(try database.favorites.allObjects().map(\.id))
    }

    /// The entries of `directory` left by a build or an atomic write (`.NAME.partial-…`, `.NAME.new-…`).
    static func temporaryFiles(_ directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix(".") }
    }

    static func prepareDatabase(_ directory: TemporaryDirectory, ids: [Int] = [21, 33]) throws {
        let cli = try CLI()
        for id in ids {
            let result = try cli.run(["add", String(id)], useDatabase: false, environment: ["ARCHIVE_DATABASE": directory.path("f.sqlite3")])
            guard result.status == 0 else { throw VerifyFailure("cannot prepare: \(result.stderr)") }
        }
    }

    @Test func aHeartAndARemovalWithTheActionLogOnAFailingDisk() throws {
        for (arguments, before, after) in [(["add", "17"], Set([21, 33]), Set([21, 33, 17])), (["remove", "21"], [21, 33], [33])] {
            let calls = try everyCall(
                prepare: { try Self.prepareDatabase($0) },
                arguments: { arguments + ["--database", $0.path("f.sqlite3"), "--log-actions", $0.path("actions.log")] },
                verify: { directory, outcome in
                    let ids = try Self.favorites(directory.path("f.sqlite3"))
                    if outcome.failed {
                        guard ids == before || ids == after else { throw VerifyFailure("favorites \(ids.sorted())") }
                    } else {
                        // Acknowledged: on disk, whatever failed on the way.
                        guard ids == after else { throw VerifyFailure("acknowledged, yet the favorites are \(ids.sorted())") }
                    }
                })
            #expect(calls >= 10)
        }
    }

    @Test func anImportIntoAnExistingAndIntoANewDatabaseOnAFailingDisk() throws {
        let records = (100..<300).map { id in
            #"{"id":\#(id),"photoUrl":"https://p/\#(id).jpg","category":"和食","dishName":"料理 \#(id)","shopName":"店","introduction":"紹介","storedAt":"2026-01-01T00:00:00.000Z"}"#
        }
        let source = try TemporaryDirectory()
        let file = source.path("in.json")
        try ("[\n" + records.joined(separator: ",\n") + "\n]\n").write(toFile: file, atomically: false, encoding: .utf8)
        let imported = Set(100..<300)
        try everyCall(
            prepare: { try Self.prepareDatabase($0) },
            arguments: { ["import", file, "--database", $0.path("f.sqlite3")] },
            verify: { directory, outcome in
                let ids = try Self.favorites(directory.path("f.sqlite3"))
                let after = imported.union([21, 33])
                guard ids == after || (outcome.failed && ids == [21, 33]) else { throw VerifyFailure("favorites: \(ids.count)") }
            })
        try everyCall(
            prepare: { _ in },
            arguments: { ["import", file, "--database", $0.path("new.sqlite3")] },
            verify: { directory, outcome in
                let path = directory.path("new.sqlite3")
                let leftovers = try Self.temporaryFiles(directory)
                guard leftovers.isEmpty else { throw VerifyFailure("left \(leftovers)") }
                guard FileManager.default.fileExists(atPath: path) else {
                    guard outcome.failed else { throw VerifyFailure("acknowledged, yet there is no database") }
                    return
                }
                // In place: whole (an error after the link says so, and that the import may be undone).
                guard try Self.favorites(path) == imported else { throw VerifyFailure("a partial database: \(try Self.favorites(path).count) favorites") }
                if outcome.failed, !outcome.result.stderr.contains("directory could not be synced") {
                    throw VerifyFailure("the database is in place, yet the error does not say so")
                }
            })
    }

    @Test func anExportOverAnOlderOneOnAFailingDisk() throws {
        let old = Data("[\"an older export\"]\n".utf8)
        try everyCall(
            prepare: { directory in
                try Self.prepareDatabase(directory)
                try old.write(to: URL(fileURLWithPath: directory.path("out.json")))
            },
            arguments: { ["export", "--database", $0.path("f.sqlite3"), "--output", $0.path("out.json")] },
            verify: { directory, outcome in
                let leftovers = try Self.temporaryFiles(directory)
                guard leftovers.isEmpty else { throw VerifyFailure("left \(leftovers)") }
                let now = try Data(contentsOf: URL(fileURLWithPath: directory.path("out.json")))
                let whole = (try? JSONSerialization.jsonObject(with: now) as? [[String: Any]])?.count == 2
                if outcome.failed, now == old { return }
                guard whole else { throw VerifyFailure("out.json is neither the old file nor the whole export: \(now.count) bytes") }
                if outcome.failed, !outcome.result.stderr.contains("directory could not be synced") {
                    throw VerifyFailure("the export is in place, yet the error does not say so")
                }
            })
    }

    @Test func aSyncBetweenTwoFilesOnAFailingDisk() throws {
        try everyCall(
            prepare: { directory in
                try Self.prepareDatabase(directory)
                let cli = try CLI()
                for id in [40, 41] {
                    _ = try cli.run(["add", String(id)], useDatabase: false, environment: ["ARCHIVE_DATABASE": directory.path("peer.sqlite3")])
                }
            },
            arguments: { ["sync", $0.path("peer.sqlite3"), "--database", $0.path("f.sqlite3")] },
            verify: { directory, outcome in
                let here = try Self.favorites(directory.path("f.sqlite3"))
                let there = try Self.favorites(directory.path("peer.sqlite3"))
                let all: Set<Int> = [21, 33, 40, 41]
                if !outcome.failed { guard here == all, there == all else { throw VerifyFailure("synced, yet \(here.sorted()) and \(there.sorted())") } }
                guard here == all || here == [21, 33], there == all || there == [40, 41] else {
                    throw VerifyFailure("a side partly synced: \(here.sorted()) and \(there.sorted())")
                }
                // Whatever the failure left, the next sync completes it.
                let again = try CLI().run(["sync", directory.path("peer.sqlite3"), "--database", directory.path("f.sqlite3")], useDatabase: false)
                guard again.status == 0, try Self.favorites(directory.path("f.sqlite3")) == all, try Self.favorites(directory.path("peer.sqlite3")) == all else {
                    throw VerifyFailure("the next sync did not converge: \(again.stderr)")
                }
            })
    }

    @Test func settingsAndTheOnboardingFlagOnAFailingDisk() throws {
        try everyCall(
            prepare: { try Self.prepareDatabase($0) },
            arguments: { ["settings", "set", "lastView", "favorites", "--database", $0.path("f.sqlite3")] },
            verify: { directory, outcome in
                let ids = try Self.favorites(directory.path("f.sqlite3"))
                guard ids == [21, 33] else { throw VerifyFailure("favorites changed: \(ids.sorted())") }
                let shown = try CLI().run(["settings", "get", "lastView", "--database", directory.path("f.sqlite3")], useDatabase: false)
                if !outcome.failed, !shown.stdout.contains("favorites") { throw VerifyFailure("acknowledged, yet lastView is \(shown.stdout)") }
            })
    }
}

/// What a directory holds after a failed command is not what it may hold.
struct VerifyFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
