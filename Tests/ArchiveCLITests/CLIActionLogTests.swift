import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--log-actions FILE` / `ARCHIVE_LOG_ACTIONS` on the real binary: lines as
/// documented, and every place a log must never go refused at start.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLIActionLogTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    func lines(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test func theFlagAndTheVariableAppendOneJSONLinePerActionAndEffect() throws {
        let log = cli.directory.path("actions.jsonl")
        #expect(try cli.run(["add", "17", "--log-actions", log]).status == 0)
        #expect(try cli.run(["search", "チーズ"], environment: ["ARCHIVE_LOG_ACTIONS": log]).status == 0)
        let objects = try lines(log)
        let actions = objects.filter { $0["kind"] as? String == "action" }.compactMap { $0["action"] as? String }
        #expect(actions == ["archive.addArchiveObjectWithID", "archive.addArchiveObjectSucceeded",
                            "archive.requestWithConditions", "settings.rememberSearch", "archive.success"])
        let effects = objects.filter { $0["kind"] as? String == "effect" }
        #expect(effects.contains { $0["effect"] as? String == "archive.search" && ($0["ms"] as? Double ?? -1) >= 0 })
        #expect(objects.allSatisfy { Set($0.keys).isSuperset(of: ["time", "kind", "action"]) })
        // Off by default: no log, no file.
        #expect(try cli.run(["favorites"]).status == 0)
        #expect(try lines(log).count == objects.count)
    }

    @Test func aLogThatWouldDestroyDataOrHangIsRefusedBeforeAnythingIsOpened() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        let database = FileSnapshot(path: cli.database)
        let link = cli.directory.path("link.sqlite3")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: cli.database)
        let hardLink = cli.directory.path("hard.sqlite3")
        try FileManager.default.linkItem(atPath: cli.database, toPath: hardLink)
        let fifo = cli.directory.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases: [(String, String)] = [
            (cli.database, "is the database"),
            (link, "is the database"),
            (hardLink, "is the database"),
            (cli.database + "-wal", "is the database"),
            (cli.directory.url.path, "Is a directory"),
            (fifo, "FIFO (named pipe) that nobody is reading"),
            (cli.database + "/log", "Not a directory"),
            (cli.directory.path("missing/dir/log"), "No such file or directory"),
        ]
        for (path, message) in cases {
            let result = try cli.run(["remove", "17", "--log-actions", path])
            #expect(result.status == 1, "\(path)")
            #expect(result.stderr.contains(message), "\(path): \(result.stderr)")
        }
        #expect(database.isUnchanged, "no refused log may touch the database")
        // With the hard link gone, the database opens again (a second link is refused: CLIDatabaseFilesTests).
        #expect(unlink(hardLink) == 0)
        #expect((try cli.run(["favorites", "--json"]).json() as? [String: Any])?["total"] as? Int == 1)
        // Refused before the database is created, too.
        let fresh = cli.directory.path("new.sqlite3")
        let refused = try cli.run(["add", "1", "--log-actions", cli.directory.path("missing/log"), "--database", fresh], useDatabase: false)
        #expect(refused.status == 1)
        #expect(!FileManager.default.fileExists(atPath: fresh))
        #expect(try cli.run(["search", "--log-actions", ""]).status == 64)
        // Every command takes the flag alike, those that dispatch no action included (before:
        // categories, check and migrations ignored it, exit 0 whatever the path).
        for command in [["categories"], ["check"], ["migrations"]] {
            let bad = try cli.run(command + ["--log-actions", cli.directory.path("missing/dir/x")])
            #expect(bad.status == 1 && bad.stderr.contains("cannot write the action log"), "\(command): \(bad.status) \(bad.stderr)")
            let log = cli.directory.path("\(command[0]).jsonl")
            #expect(try cli.run(command + ["--log-actions", log]).status == 0, "\(command)")
            #expect(FileManager.default.fileExists(atPath: log), "\(command) did not open its log")
        }
    }

    @Test func aLogThatFailsMidwayStopsWithAWarningAndTheWorkIsDone() throws {
        // /dev/full: every write fails with ENOSPC.
        let full = try cli.run(["add", "17", "--log-actions", "/dev/full"])
        #expect(full.status == 0)
        #expect(full.stderr.contains("warning: the action log /dev/full stopped: No space left on device"), "\(full.stderr)")
        // A FIFO whose reader leaves while the search waits on a silent catalog: the
        // next line meets EPIPE, not a SIGPIPE that would kill the process.
        let fifo = cli.directory.path("reader-leaves")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)  // not inherited by the child
        #expect(reader >= 0)
        let silent = try HostileHTTPServer(.hang)
        let child = try ChildProcess(
            CLI.executable.path, ["search", "--api-url", silent.url, "--timeout", "2", "--log-actions", fifo, "--database", cli.database],
            environment: cli.environment())
        var pollDescriptor = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
        #expect(poll(&pollDescriptor, 1, 10_000) == 1, "the first line arrives at once")
        close(reader)
        let result = child.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("stopped: Broken pipe"), "\(result.stderr)")
        #expect(result.stderr.contains("offline — showing your favorites"), "the search went on: \(result.stderr)")
    }
}
