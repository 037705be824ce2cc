import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The hostile cases of RELIABILITY.md's "front doors" section, each run on the
/// real `archive` binary: no command may lose, poison or silently discard data.
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct FrontDoorTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    /// A JSON import file of `records`, one object literal each.
    func importFile(_ records: [String], name: String = "in.json") throws -> String {
        let path = cli.directory.path(name)
        try ("[\n" + records.joined(separator: ",\n") + "\n]\n").write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    static func record(_ id: Int, storedAt: String = #""2026-01-01T00:00:00.000Z""#, dishName: String = "料理") -> String {
        #"{"id":\#(id),"photoUrl":"https://p/\#(id).jpg","category":"和食","dishName":"\#(dishName)","shopName":"店","introduction":"紹介","storedAt":\#(storedAt)}"#
    }

    /// Temporary files an interrupted or failed command could leave behind in `directory`.
    func leftovers(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".partial-") || $0.contains(".import-spool-") }
    }

    // MARK: - 1. Export over the database

    /// A database whose directory cannot be created says why, in the system's
    /// words, and creates nothing.
    @Test func aDirectoryThatCannotBeCreatedIsNamedWithTheSystemsReason() throws {
        let file = cli.directory.path("a-file")
        #expect(TestFile.create(atPath: file, contents: Data("x".utf8)))
        let result = try cli.run(["add", "17", "--database", file + "/sub/favorites.sqlite3"], useDatabase: false)
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot create the database directory \(file)/sub: Not a directory"), "\(result.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "x")
    }

    @Test func exportRefusesTheDatabaseAndItsFilesThroughAnyName() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        let snapshot = FileSnapshot(path: cli.database)
        let symlink = cli.directory.path("link.json")
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: cli.database)
        let dotted = cli.directory.path("./sub/../favorites.sqlite3")
        try FileManager.default.createDirectory(atPath: cli.directory.path("sub"), withIntermediateDirectories: true)
        for output in [cli.database, cli.database + "-wal", cli.database + "-shm", cli.database + "-journal", symlink, dotted] {
            let result = try cli.run(["export", "-o", output])
            #expect(result.status == 1, "\(output)")
            #expect(result.stderr.contains("refusing to export"), "\(output): \(result.stderr)")
            #expect(snapshot.isUnchanged, "\(output) replaced the database")
        }
        // A hard link is a second name of the database: refused before anything is opened.
        let hardLink = cli.directory.path("hard.json")
        #expect(link(cli.database, hardLink) == 0)
        let linked = try cli.run(["export", "-o", hardLink])
        #expect(linked.status == 1 && linked.stderr.contains("has 2 hard links"), "\(linked.stderr)")
        #expect(snapshot.isUnchanged, "the hard link replaced the database")
        #expect(unlink(hardLink) == 0)
        #expect(!FileManager.default.fileExists(atPath: cli.database + "-journal"))
        #expect(try leftovers(in: cli.directory.url.path).isEmpty)
        #expect(try cli.run(["favorites", "--json"]).json() as? [String: Any] != nil)
    }

    // MARK: - 2. A poisoned storedAt

    @Test(arguments: ["-9223372036854775808", "9223372036854775807", #""0000-12-31T23:59:59.999Z""#, "-62135596800001", "253402300800000"])
    func aStoredAtOutsideTheFormatIsRefusedWithItsRecordAndField(storedAt: String) throws {
        let file = try importFile([Self.record(1), Self.record(2, storedAt: storedAt)])
        let result = try cli.run(["import", file])
        #expect(result.status == 1)
        #expect(result.stderr.contains("record 1"), "\(result.stderr)")
        #expect(result.stderr.contains("storedAt"))
        // The import opened (and so created) the database, and stored nothing.
        #expect((try cli.run(["favorites", "--json"]).json() as? [String: Any])?["total"] as? Int == 0)
    }

    @Test func theFormatsExtremeDatesRoundTrip() throws {
        let file = try importFile([Self.record(1, storedAt: #""0001-01-01T00:00:00.000Z""#), Self.record(2, storedAt: #""9999-12-31T23:59:59.999Z""#)])
        #expect(try cli.run(["import", file]).status == 0)
        let export = try cli.run(["export"])
        #expect(export.stdout.contains(#""id":2,"#) && export.stdout.contains(#""storedAt":"9999-12-31T23:59:59.999Z""#))
        #expect(export.stdout.contains(#""storedAt":"0001-01-01T00:00:00.000Z""#))
        let lines = export.stdout.split(separator: "\n")
        #expect(lines[1].hasPrefix(#"{"id":2,"#), "newest first")
    }

    @Test func aRowAlreadyOutOfRangeNeverTrapsAndIsNamed() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        do {
            // Written by hand, as an older build or another tool could have.
            let queue = try DatabaseQueue(path: cli.database)
            try queue.write { db in
                try db.execute(
                    "INSERT INTO archive_objects (id, photo_url, category, dish_name, shop_name, introduction, stored_at) VALUES (99, 'u', '和食', '毒', '店', '紹介', -9223372036854775808)")
            }
        }
        let favorites = try cli.run(["favorites"])
        #expect(favorites.status == 1, "must fail cleanly, not trap: \(favorites.status)")
        #expect(favorites.stderr.contains("favorite 99"), "\(favorites.stderr)")
        let output = cli.directory.path("out.json")
        let export = try cli.run(["export", "-o", output])
        #expect(export.status == 1)
        #expect(export.stderr.contains("favorite 99"))
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try leftovers(in: cli.directory.url.path).isEmpty)
        let check = try cli.run(["check"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("favorite 99 has stored_at -9223372036854775808"))
        let report = try #require(try cli.run(["check", "--json"]).json() as? [String: Any])
        #expect(report["ok"] as? Bool == false)
        // The row, the index that never saw it and the change feed that has no place for it
        // (another program wrote it).
        let problems = report["problems"] as? [String] ?? []
        #expect(problems.count == 3, "\(problems)")
        #expect(problems.contains { $0.contains("index misses 1 stored favorite (99;") })
        #expect(problems.contains { $0.contains("1 favorite(s) have no place in the change feed") })
        // Removing it, then rebuilding the index, heals the database.
        #expect(try cli.run(["remove", "99"]).status == 0)
        #expect(try cli.run(["reindex"]).status == 0)
        #expect(try cli.run(["check"]).status == 0)
    }

    // MARK: - 3, 4. The database path

    @Test func anEmptyDatabaseFlagIsAUsageErrorAndAnEmptyVariableIsUnset() throws {
        for arguments in [["--database", "", "add", "5"], ["add", "5", "--database", ""], ["add", "5", "--database="]] {
            let result = try cli.run(arguments, useDatabase: false)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains("--database needs a file path") || result.stderr.contains("Missing value for '--database"), "\(arguments): \(result.stderr)")
        }
        #expect(try cli.run(["add", "5"], useDatabase: false, environment: ["ARCHIVE_DATABASE": ""]).status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.directory.path(".local/share/favorite-archive/favorites.sqlite3")))
    }

    @Test func somethingOtherThanARegularFileIsNeverOpenedAsTheDatabase() throws {
        let fifo = cli.directory.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let journalBefore = FileManager.default.fileExists(atPath: "/dev/null-journal")
        for (path, kind) in [("/dev/null", "a character device"), (fifo, "a FIFO"), (cli.directory.url.path, "a directory")] {
            for command in [["add", "17"], ["favorites"], ["check"], ["export"], ["migrations"], ["reindex"]] {
                // A FIFO opened as a database would block forever: a hang is killed and fails here.
                let result = try cli.run(command + ["--database", path], useDatabase: false, timeout: .seconds(10))
                #expect(result.status == 1, "\(command) \(path)")
                #expect(result.stderr.contains(kind), "\(command) \(path): \(result.stderr)")
            }
        }
        #expect(FileManager.default.fileExists(atPath: "/dev/null-journal") == journalBefore)
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.directory.url.path)
        #expect(!names.contains { $0.hasPrefix("fifo-") }, "\(names)")
    }

    /// A file name with no room for `NAME-journal` beside it (255 bytes a name here):
    /// SQLite would create the file, fail on its journal, and leave an empty file and
    /// a message about neither. Refused first, for every command, with nothing created;
    /// a name one byte shorter works.
    @Test func aDatabaseNameTooLongForItsJournalIsRefusedWithNothingCreated() throws {
        let directory = cli.directory.path("names")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = cli.directory.path("one.json")
        try Data("[\(Self.record(1))]".utf8).write(to: URL(fileURLWithPath: file))
        for length in [248, 255, 300] {
            let database = directory + "/" + String(repeating: "n", count: length)
            for command in [["add", "17"], ["import", file], ["favorites"], ["check"], ["search", "チーズ"]] {
                let result = try cli.run(command + ["--database", database], useDatabase: false)
                #expect(result.status == 1, "\(command) \(length)")
                #expect(result.stderr.contains("is \(length) bytes, too long for the file SQLite makes beside it (NAME-journal)"),
                        "\(command) \(length): \(result.stderr)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        let fits = directory + "/" + String(repeating: "n", count: 247)
        #expect(try cli.run(["add", "17", "--database", fits], useDatabase: false).status == 0)
        #expect(try cli.run(["add", "21", "--database", fits], useDatabase: false).status == 0)
        #expect((try cli.run(["favorites", "--json", "--database", fits], useDatabase: false).json() as? [String: Any])?["total"] as? Int == 2)
    }

    @Test func aPathEndingInASlashIsADirectoryNotAFileToCreate() throws {
        let missing = cli.directory.path("archive") + "/"
        for command in [["add", "17"], ["favorites"], ["check"], ["migrations"], ["reindex"]] {
            let result = try cli.run(command + ["--database", missing], useDatabase: false)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("is a directory path (it ends in /)"), "\(command): \(result.stderr)")
        }
        // SQLite would have created a file named `archive` beside it.
        #expect(!FileManager.default.fileExists(atPath: cli.directory.path("archive")))
    }

    @Test func aRelativeXDGDataHomeIsIgnored() throws {
        let relative = "favorite-archive-relative-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: relative) }
        #expect(try cli.run(["add", "17"], useDatabase: false, environment: ["XDG_DATA_HOME": relative]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: relative))
        #expect(FileManager.default.fileExists(atPath: cli.directory.path(".local/share/favorite-archive/favorites.sqlite3")))
    }

    // MARK: - 6. Export destinations

    @Test func exportWritesThroughASymlinkAndToStandardOutput() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        let target = cli.directory.path("target.json")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        let link = cli.directory.path("link.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.json")
        #expect(try cli.run(["export", "-o", link]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.json", "the link stays a link")
        let written = String(decoding: FileManager.default.contents(atPath: target) ?? Data(), as: UTF8.self)
        #expect(written.hasPrefix("[\n{\"id\":17,"))

        for output in ["-", "/dev/stdout"] {
            let result = try cli.run(["export", "-o", output])
            #expect(result.status == 0, "\(output): \(result.stderr)")
            #expect(result.stdout == written, "\(output)")
        }
        #expect(!FileManager.default.fileExists(atPath: "-"))
        #expect(try leftovers(in: cli.directory.url.path).isEmpty)
    }

    @Test func aFailedExportLeavesNoFileAndNoPartialFile() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        let directory = cli.directory.path("out")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let toDirectory = try cli.run(["export", "-o", directory])
        #expect(toDirectory.status == 1)
        #expect(toDirectory.stderr.contains("is a directory"))
        let missingParent = try cli.run(["export", "-o", cli.directory.path("no/such/dir/out.json")])
        #expect(missingParent.status == 1)
        #expect(missingParent.stderr.contains("no file was written"))
        #expect(try leftovers(in: cli.directory.url.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    /// Runs `archive ARGUMENTS` in the test's directory, so relative paths resolve there.
    func runInDirectory(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run("/bin/sh", ["-c", #"cd "$0" && exec "$@""#, cli.directory.url.path, CLI.executable.path] + arguments,
                             environment: cli.environment())
    }

    @Test func aRelativeOutputEndingInASlashIsRefusedNeverACrash() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        try FileManager.default.createDirectory(atPath: cli.directory.path("d"), withIntermediateDirectories: true)
        // Foundation's deletingLastPathComponent traps on `d/` and `./`: the export must not split paths with it.
        for output in ["d/", "./", "x/", "é/", "d//"] {
            let result = try runInDirectory(["export", "--database", cli.database, "-o", output])
            #expect(result.status == 1, "\(output): \(result.stderr)")
            #expect(result.stderr.contains("it ends in /, so it names a directory"), "\(output): \(result.stderr)")
        }
        // A link whose target ends in a slash is followed, then refused the same way.
        try FileManager.default.createSymbolicLink(atPath: cli.directory.path("l"), withDestinationPath: "d/")
        let throughLink = try runInDirectory(["export", "--database", cli.database, "-o", "l"])
        #expect(throughLink.status == 1, "\(throughLink.stderr)")
        #expect(throughLink.stderr.contains("is a directory"), "\(throughLink.stderr)")
        // A relative output beside a relative database is written, and the database is still refused.
        #expect(try runInDirectory(["export", "--database", "favorites.sqlite3", "-o", "e.json"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.directory.path("e.json")))
        let own = try runInDirectory(["export", "--database", "favorites.sqlite3", "-o", "./d/../favorites.sqlite3"])
        #expect(own.status == 1)
        #expect(own.stderr.contains("refusing to export"), "\(own.stderr)")
        #expect(try leftovers(in: cli.directory.url.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.path("d")).isEmpty)
    }

    // MARK: - 7. Import from a pipe

    @Test func importReadsStandardInputAPipeAndAFIFOOnce() throws {
        let text = "[\n" + [Self.record(1), Self.record(2), Self.record(3)].joined(separator: ",\n") + "\n]\n"
        for argument in ["-", "/dev/stdin"] {
            let result = try cli.run(["import", argument, "--json"], input: .pipe(Data(text.utf8)))
            #expect(result.status == 0, "\(argument): \(result.stderr)")
            #expect(try result.json() as? [String: Int] == ["records": 3, "imported": 3], "\(argument)")
        }
        // Through a FIFO, three favorites not stored yet: the total shows they arrived.
        let fifoText = "[\n" + [Self.record(4), Self.record(5), Self.record(6)].joined(separator: ",\n") + "\n]\n"
        let fifo = cli.directory.path("feed")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            let descriptor = open(fifo, O_WRONLY)
            guard descriptor >= 0 else { return }
            _ = fifoText.withCString { write(descriptor, $0, strlen($0)) }
            close(descriptor)
        }
        writer.start()
        let fromFIFO = try cli.run(["import", fifo, "--json"])
        #expect(fromFIFO.status == 0, "\(fromFIFO.stderr)")
        #expect(try fromFIFO.json() as? [String: Int] == ["records": 3, "imported": 3])
        #expect(try leftovers(in: cli.directory.url.path).isEmpty, "the spool file is removed")
        // A bad file from a pipe is refused whole, like a bad file on disk.
        let bad = try cli.run(["import", "-"], input: .pipe(Data("[\(Self.record(9)), {\"id\": 007}]".utf8)))
        #expect(bad.status == 1)
        #expect(try leftovers(in: cli.directory.url.path).isEmpty)
        #expect((try cli.run(["favorites", "--json"]).json() as? [String: Any])?["total"] as? Int == 6)
    }

    /// Input that never ends is refused at its first bad byte, not copied until the
    /// disk is full: `/dev/zero`, `/dev/urandom`, and a FIFO whose writer sent a bad
    /// record and keeps it open. Nothing is stored and no spool file is left.
    @Test func endlessOrGarbageInputIsRefusedAtItsFirstBadByte() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        for device in ["/dev/zero", "/dev/urandom"] {
            let result = try cli.run(["import", device], timeout: .seconds(30))
            #expect(result.status == 1, "\(device): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("nothing was imported"), "\(device): \(result.stderr)")
        }
        let fifo = cli.directory.path("endless")
        #expect(mkfifo(fifo, 0o600) == 0)
        let done = DispatchSemaphore(value: 0)
        let writer = Thread {
            let descriptor = open(fifo, O_WRONLY)
            guard descriptor >= 0 else { return }
            let text = "[\(Self.record(1)),\n{\"id\": 007}"
            _ = text.withCString { write(descriptor, $0, strlen($0)) }
            // The writer never ends its stream: only the test's end closes it.
            _ = done.wait(timeout: .now() + 60)
            close(descriptor)
        }
        writer.start()
        let fromFIFO = try cli.run(["import", fifo], timeout: .seconds(30))
        done.signal()
        #expect(fromFIFO.status == 1, "\(fromFIFO.status) \(fromFIFO.stderr)")
        #expect(fromFIFO.stderr.contains("record 1"), "\(fromFIFO.stderr)")
        #expect(try leftovers(in: cli.directory.url.path).isEmpty, "the spool file is removed")
        #expect((try cli.run(["favorites", "--json"]).json() as? [String: Any])?["total"] as? Int == 1)
    }

    // MARK: - 8. changed

    struct Change: Decodable, Equatable {
        let id: Int
        let isStored: Bool
        let changed: Bool
    }

    func change(_ result: CLI.Result) throws -> Change {
        try JSONDecoder().decode(Change.self, from: Data(result.stdout.utf8))
    }

    @Test func changedTellsTheTruth() throws {
        let first = try cli.run(["add", "17", "--json"])
        #expect(first.status == 0)
        #expect(try change(first) == Change(id: 17, isStored: true, changed: true))
        let again = try cli.run(["add", "17", "--json"])
        #expect(again.status == 0)
        #expect(try change(again) == Change(id: 17, isStored: true, changed: false))
        let absent = try cli.run(["remove", "5", "--json"])
        #expect(absent.status == 1)
        #expect(try change(absent) == Change(id: 5, isStored: false, changed: false))
        let removed = try cli.run(["remove", "17", "--json"])
        #expect(removed.status == 0)
        #expect(try change(removed) == Change(id: 17, isStored: false, changed: true))

        let duplicated = try importFile([Self.record(1), Self.record(2), Self.record(1, dishName: "二度目")])
        let imported = try cli.run(["import", duplicated, "--json"])
        #expect(try imported.json() as? [String: Int] == ["records": 3, "imported": 2])
        #expect(try cli.run(["import", duplicated]).stderr.contains("imported 2 favorites from 3 records"))
    }

    // MARK: - 9. Cursors

    @Test func everyPrintedCursorLeadsSomewhereAndWorksAsPrinted() throws {
        let file = try importFile([
            Self.record(1, storedAt: #""1969-07-20T20:17:40.000Z""#), Self.record(2, storedAt: #""1960-01-01T00:00:00.000Z""#),
        ])
        #expect(try cli.run(["import", file]).status == 0)
        let full = try cli.run(["favorites", "--limit", "2", "--json"])
        #expect((try full.json() as? [String: Any])?["nextCursor"] is NSNull, "an exactly full last page has no next cursor")
        #expect(try !cli.run(["favorites", "--limit", "2"]).stdout.contains("next:"))

        let first = try cli.run(["favorites", "--limit", "1"])
        let hint = try #require(first.stderr.components(separatedBy: "next page: ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(hint.hasPrefix("archive favorites --limit 1 --after=-"), "\(hint)")
        let words = hint.split(separator: " ").dropFirst().map(String.init)
        let second = try cli.run(words)
        #expect(second.status == 0, "\(hint): \(second.stderr)")
        #expect(second.stdout.contains("♥    2"))
    }

    /// The next-page hint for a keyword with a tab quoted its visible form (`\t`, two
    /// characters), so that the command pasted into a shell searched for something else.
    /// It is written with ANSI-C quoting now (`$'a\tb'`): nothing raw on the terminal, and
    /// run by bash it prints the next page.
    @Test func theNextPageHintWorksWhenPastedForAKeywordWithATab() throws {
        let file = try importFile([Self.record(1, dishName: "a\\tb one"), Self.record(2, dishName: "a\\tb two")])
        #expect(try cli.run(["import", file]).status == 0)
        let first = try cli.run(["favorites", "--search", "a\tb", "--limit", "1"])
        #expect(first.status == 0, "\(first.stderr)")
        let hint = try #require(first.stderr.components(separatedBy: "next page: ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(hint.hasPrefix("archive favorites --search $'a\\tb' --limit 1 --after="), "\(hint)")
        #expect(!hint.contains("\t"))
        let bash = try Prerequisite.path(of: "bash", debianPackage: "bash")
        let directory = CLI.executable.deletingLastPathComponent().path
        let pasted = try ChildProcess.run(
            bash, ["-c", "PATH='\(directory)':$PATH; " + hint + " --database '\(cli.database)'"], environment: cli.environment())
        #expect(pasted.status == 0, "\(hint): \(pasted.stderr)")
        #expect(first.stdout.contains("two"))  // newest first: the same date, the larger ID
        #expect(pasted.stdout.contains("one"), "\(hint): \(pasted.stdout)")
        #expect(!pasted.stdout.contains("two"))
    }

    // MARK: - 10, 11. A catalog that lies or attacks the terminal

    /// A catalog server (Python's http.server) that answers every request with dish 17,
    /// whose texts carry an OSC title sequence, a carriage return and a bidi override.
    final class HostileCatalog {
        let process: ChildProcess
        let url: String

        init(directory: TemporaryDirectory) throws {
            let script = directory.path("hostile.py")
            try #"""
            import http.server, json
            dish = {"id": 17, "photoUrl": "https://p/17.jpg", "category": "洋食",
                    "dishName": "evil\u001b]0;pwned\u0007name", "shopName": "shop\rforged line",
                    "introduction": "intro \u202egnp.exe"}
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    body = json.dumps(dish if self.path.startswith("/archive_images/") else [dish]).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *args):
                    pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            print("http://127.0.0.1:%d" % server.server_address[1], flush=True)
            server.serve_forever()
            """#.write(toFile: script, atomically: false, encoding: .utf8)
            process = try ChildProcess(try Prerequisite.path(of: "python3", debianPackage: "python3"), [script], streamingStdout: true)
            url = process.nextLine() ?? ""
        }
    }

    @Test func addingThroughACatalogThatAnswersAnotherDishStoresNothing() throws {
        let catalog = try HostileCatalog(directory: cli.directory)
        let result = try cli.run(["add", "5", "--api-url", catalog.url])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot store 5: the catalog answered dish 17 when asked for dish 5"), "\(result.stderr)")
        #expect((try cli.run(["favorites", "--json"]).json() as? [String: Any])?["total"] as? Int == 0)
    }

    @Test func controlCharactersFromTheCatalogOrAFileNeverReachTheTerminal() throws {
        let catalog = try HostileCatalog(directory: cli.directory)
        let search = try cli.run(["search", "name", "--api-url", catalog.url])
        #expect(search.status == 0, "\(search.stderr)")
        for output in [search.stdout, search.stderr] {
            #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\r" || $0 == "\u{7}" || $0 == "\u{202E}" })
        }
        #expect(search.stdout.contains(#"evil\u{1B}]0;pwned\u{7}name"#))
        #expect(search.stdout.contains(#"shop\rforged line"#))
        #expect(search.stdout.contains(#"intro \u{202E}gnp.exe"#))
        // --json stays exact JSON: the same text, escaped as JSON.
        let json = try #require(try cli.run(["search", "name", "--api-url", catalog.url, "--json"]).json() as? [String: Any])
        let row = try #require((json["results"] as? [[String: Any]])?.first)
        #expect(row["dishName"] as? String == "evil\u{1B}]0;pwned\u{7}name")

        // The same through an import file and the favorites list.
        let file = try importFile([Self.record(3, dishName: #"x\u001b[2J\u009b31m\r"#)])
        #expect(try cli.run(["import", file]).status == 0)
        let favorites = try cli.run(["favorites"])
        #expect(!favorites.stdout.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" || $0 == "\r" })
        #expect(favorites.stdout.contains(#"x\u{1B}[2J\u{9B}31m\r"#))
        let exported = try cli.run(["favorites", "--json"])
        #expect(exported.stdout.contains(#""dishName":"x\u001b[2J\u009b31m\r""#) || exported.stdout.contains(#"\u001b[2J"#))
    }

    @Test func errorMessagesShowControlCharactersInsteadOfSendingThem() throws {
        func isRaw(_ scalar: Unicode.Scalar) -> Bool { scalar == "\u{1B}" || scalar == "\u{7}" || scalar == "\r" || scalar == "\u{9B}" }
        // A value quoted from an import file.
        let file = try importFile([Self.record(1, storedAt: #""bad\u001b]0;pwned\u0007\r""#)])
        let badDate = try cli.run(["import", file])
        #expect(badDate.status == 1)
        #expect(badDate.stderr.contains(#"found "bad\u{1B}]0;pwned\u{7}\r""#), "\(badDate.stderr)")
        // A path quoted in a failure, and an argument quoted in a usage error (whose usage keeps its lines).
        let hostileDirectory = cli.directory.path("e\u{1B}]0;pwned\u{7}")
        try FileManager.default.createDirectory(atPath: hostileDirectory, withIntermediateDirectories: true)
        let badPath = try cli.run(["favorites", "--database", hostileDirectory], useDatabase: false)
        #expect(badPath.status == 1)
        #expect(badPath.stderr.contains(#"e\u{1B}]0;pwned\u{7}' is a directory"#), "\(badPath.stderr)")
        let usage = try cli.run(["add", "\u{9B}31m\u{1B}[2J"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains(#"got '\u{9B}31m\u{1B}[2J'"#), "\(usage.stderr)")
        #expect(usage.stderr.contains("\nUsage: archive add"), "\(usage.stderr)")
        // A message ArgumentParser writes itself, quoting an option it does not know.
        let unknown = try cli.run(["favorites", "--x\u{1B}]0;pwned\u{7}"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains(#"--x\u{1B}]0;pwned\u{7}"#), "\(unknown.stderr)")
        for result in [badDate, badPath, usage, unknown] {
            #expect(!result.stderr.unicodeScalars.contains(where: isRaw), "\(result.stderr.debugDescription)")
        }
        // The TUI's start-up errors too; help is still printed as it is, on stdout.
        let tui = try ChildProcess.run(BuiltProduct.url(named: "archive-tui").path, ["--database", hostileDirectory], environment: cli.environment())
        #expect(tui.status == 1)
        #expect(tui.stderr.contains(#"e\u{1B}]0;pwned\u{7}' is a directory"#), "\(tui.stderr)")
        #expect(!tui.stderr.unicodeScalars.contains(where: isRaw))
        let help = try cli.run(["--help"], useDatabase: false)
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: archive"))
    }

    // MARK: - 12, 13. Options

    @Test func sharedOptionsWorkBeforeAndAfterTheSubcommand() throws {
        #expect(try cli.run(["--database", cli.database, "add", "17"], useDatabase: false).status == 0)
        let before = try cli.run(["--database", cli.database, "--json", "favorites"], useDatabase: false)
        #expect((try before.json() as? [String: Any])?["total"] as? Int == 1, "\(before.stderr)")
        let after = try cli.run(["favorites", "--database", cli.database, "--json"], useDatabase: false)
        #expect(after.stdout == before.stdout)
        let other = cli.directory.path("other.sqlite3")
        #expect(try cli.run(["--database", other, "add", "21", "--database", cli.database], useDatabase: false).status == 0)
        #expect(!FileManager.default.fileExists(atPath: other), "the option after the subcommand wins")
    }

    @Test func aBadCatalogURLStopsOnlyCommandsThatUseTheCatalog() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        let environment = ["ARCHIVE_API_URL": "not-a-url"]
        let file = try importFile([Self.record(1)])
        for command in [["favorites"], ["export"], ["import", file], ["check"], ["migrations"], ["onboarding"], ["remove", "1"], ["reindex"]] {
            let result = try cli.run(command, environment: environment)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        for command in [["search"], ["add", "21"], ["categories"]] {
            let result = try cli.run(command, environment: environment)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("'not-a-url' is not an http(s) URL"), "\(command): \(result.stderr)")
        }
        let badTimeout = try cli.run(["search"], environment: ["ARCHIVE_API_TIMEOUT": "soon"])
        #expect(badTimeout.status == 1)
        #expect(badTimeout.stderr.contains("ARCHIVE_API_TIMEOUT 'soon' is not a timeout"))
    }

    @Test func theTimeoutOptionBoundsAWaitOnASilentServer() throws {
        // A listening socket that never accepts: the connection is made, no answer comes.
        let listener = try LoopbackSocket(listening: true)
        let port = listener.port
        // No clock here (a busy machine is slow, not wrong): the wait ended by the CLI's own
        // timer, which is what says "within 0.5 s", and the CLI exited by itself (the
        // harness would kill it at its limit, an exit status of 137).
        let result = try cli.run(["search", "--api-url", "http://127.0.0.1:\(port)", "--timeout", "0.5"])
        #expect(result.status == 0, "offline-first: the (empty) favorites answer")
        #expect(result.stderr.contains("did not answer within 0.5 s"), "\(result.stderr)")
        #expect(result.stderr.contains("--timeout"))
    }

    // MARK: - 15. Damaged databases

    @Test func aDamagedDatabaseIsReportedAsItselfNotAsTheOutput() throws {
        let records = (1...3_000).map { Self.record($0) }
        #expect(try cli.run(["import", try importFile(records)]).status == 0)
        var bytes = try #require(FileManager.default.contents(atPath: cli.database))
        for index in (4096 * 3)..<min(bytes.count, 4096 * 23) { bytes[index] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: cli.database))
        let output = cli.directory.path("c.json")
        let export = try cli.run(["export", "-o", output])
        #expect(export.status == 1)
        #expect(export.stderr.contains("malformed"), "\(export.stderr)")
        #expect(!export.stderr.contains("cannot write"))
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try leftovers(in: cli.directory.url.path).isEmpty)
    }

    @Test func checkPrintsAReportForATruncatedFile() throws {
        #expect(try cli.run(["import", try importFile((1...2_000).map { Self.record($0) })]).status == 0)
        #expect(truncate(cli.database, 10_000) == 0)
        let human = try cli.run(["check"])
        #expect(human.status == 1)
        #expect(human.stdout.hasPrefix("problems found:"), "\(human.stdout) \(human.stderr)")
        let json = try cli.run(["check", "--json"])
        #expect(json.status == 1)
        let report = try #require(try json.json() as? [String: Any])
        #expect(report["ok"] as? Bool == false)
        let problems = try #require(report["problems"] as? [String])
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { !$0.contains("\n") })
    }

    // MARK: - 16. Strict JSON

    @Test(arguments: [#""id":007"#, #""id":1,"extra":-"#, #""id":1,"extra":1e"#, #""id":1,"extra":01"#, #""id":1,"extra":1."#, #""id":-0"#])
    func invalidJSONNumbersAreRefused(fields: String) throws {
        let file = try importFile([#"{\#(fields),"photoUrl":"u","category":"c","dishName":"d","shopName":"s","introduction":"i"}"#])
        let result = try cli.run(["import", file])
        #expect(result.status == 1, "\(fields)")
        #expect(result.stderr.contains("nothing was imported"))
    }

    @Test func validJSONNumbersInUnknownFieldsAreAccepted() throws {
        let file = try importFile([#"{"id":1,"extra":[-0.5e+3,0,10,1E-2,{"n":-12}],"photoUrl":"u","category":"c","dishName":"d","shopName":"s","introduction":"i"}"#])
        #expect(try cli.run(["import", file]).status == 0)
    }

    // MARK: - Text from the database, on the terminal (issue 44, case 5)

    /// `archive migrations` prints `schema_migrations.name` and `applied_at`: a database
    /// received from someone else could hold terminal escapes there. They are printed
    /// visible, as every other text from a database is.
    @Test func migrationsPrintsTheDatabasesTextsVisibly() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        do {
            let database = try Database(path: cli.database)
            try database.execute("UPDATE schema_migrations SET name = 'x\u{1B}]0;pwned\u{07}\u{1B}[2J', applied_at = '\u{1B}[31mred' WHERE version = 1")
        }
        let result = try cli.run(["migrations"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains(#"\u{1B}]0;pwned"#), "\(result.stdout)")
    }

    // MARK: - A catalog URL with a query (issue 44, case 6)

    /// `--api-url 'http://host/api?token=abc'` sent `…/archive_images?token=abc?q=…`, and a
    /// `#fragment` dropped the keyword: a json-server then returned every dish, printed as
    /// the results for the keyword. Such a base is refused, saying why, before any request.
    @Test(arguments: ["http://127.0.0.1:1/api?token=abc", "http://127.0.0.1:1/#x"])
    func aCatalogURLWithAQueryOrFragmentIsRefused(url: String) throws {
        let result = try cli.run(["search", "チーズ", "--api-url", url])
        #expect(result.status != 0, "\(result.stdout)")
        #expect(result.stderr.contains("has a query or a fragment"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    // MARK: - Remembering a search behind another writer (issue 44, case 8)

    /// Remembering the last search is a write: behind another process's write transaction
    /// it waited the whole busy timeout (5 s) before the command could end, and again the
    /// next time. It no longer waits: while the other transaction is open, the search
    /// answers and ends without ever sleeping in SQLite's busy handler (watched in
    /// `/proc`), and the search remembered before stays.
    @Test func aSearchNeverWaitsToRememberItself() throws {
        #expect(try cli.run(["search", "餃子"]).status == 0)  // remembered: 餃子
        let writer = try Database(path: cli.database)
        try writer.execute("BEGIN IMMEDIATE")
        let search = try ChildProcess(CLI.executable.path, ["search", "チーズ", "--database", cli.database], environment: cli.environment())
        var sleptInBusyHandler = false
        while !search.hasExited {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(search.pid)/task")) ?? []
            if threads.contains(where: { CLIMainThreadTests.isSleeping(pid: search.pid, thread: $0) }) { sleptInBusyHandler = true }
            sched_yield()
        }
        let result = search.wait()
        try writer.execute("COMMIT")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("チーズハンバーグ"))
        #expect(!sleptInBusyHandler, "the search waited for the other writer to remember itself")
        let settings = try cli.run(["settings", "get", "lastSearchKeyword"])
        #expect(settings.stdout.contains("餃子"), "\(settings.stdout)")
    }

    /// `--log-actions /dev/tty` in a process without a terminal (a new session, `setsid`)
    /// was refused as "a FIFO that nobody is reading": it says the device's own reason now.
    @Test func anActionLogOnATerminalThatIsNotThereSaysSo() throws {
        let setsid = try Prerequisite.path(of: "setsid", debianPackage: "util-linux")
        let result = try ChildProcess.run(
            setsid, ["--wait", CLI.executable.path, "search", "チーズ", "--log-actions", "/dev/tty", "--database", cli.database],
            environment: cli.environment())
        #expect(result.status != 0)
        #expect(result.stderr.contains("/dev/tty"), "\(result.stderr)")
        #expect(result.stderr.contains("No such device or address"), "\(result.stderr)")
        #expect(!result.stderr.contains("FIFO"), "\(result.stderr)")
    }

    /// `--limit -1` said "Missing value for '--limit'": the value is read as given and
    /// refused by its range.
    @Test(arguments: ["-1", "0", "-5000"])
    func aNegativeOrZeroLimitIsRefusedByItsRange(limit: String) throws {
        let result = try cli.run(["favorites", "--limit", limit])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--limit must be between 1 and"), "\(result.stderr)")
    }

    /// A migration recorded as version −1 was reported as written by "a newer version":
    /// a number below the latest known is named for what it is, the table changed by
    /// something else, and the file is left as it was.
    @Test func aMigrationNumberNoVersionHasIsNotCalledNewer() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        do {
            let database = try Database(path: cli.database)
            try database.execute("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (-1, 'odd', 'x', 'now')")
        }
        let snapshot = FileSnapshot(path: cli.database)
        let result = try cli.run(["migrations"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("records migration -1 (odd), which no version of this program has"), "\(result.stderr)")
        #expect(!result.stderr.contains("newer"))
        #expect(snapshot.isUnchanged)
    }
}
