import Foundation
import TestSupport
import Testing

/// Every acknowledgement of `archive` comes after what it acknowledges is on disk, watched
/// under strace on the real binary: when the command starts writing its acknowledgement
/// ("stored", "imported", "synced"...), every write to the files it keeps has been followed
/// by a sync of that file, and every new or renamed name by a sync of its directory
/// (docs/ARCHITECTURE.md, "Durability"). Seen red with `synchronous=NORMAL`: "♥ 21 stored"
/// was written before the WAL's `fdatasync`.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLIDurabilityTests {
    /// Runs `archive ARGUMENTS` under strace and expects its acknowledgement (`text`, ASCII)
    /// written once nothing of what `keeps` names is left unsynced.
    func expectDurable(
        _ cli: CLI, _ arguments: [String], acknowledgement text: String, keeps: @escaping (String) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (trace, result) = try SyscallTrace.run(CLI.executable.path, arguments, environment: cli.environment(), in: cli.directory)
        #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        guard let acknowledgement = trace.firstWrite(containing: text, notTo: keeps) else {
            Issue.record("no write of \(text) in the trace of \(arguments): \(result.stdout) \(result.stderr)", sourceLocation: sourceLocation)
            return
        }
        let unsynced = trace.unsynced(before: acknowledgement, keeps: keeps)
        #expect(unsynced.isEmpty, "\(arguments) acknowledged before these were on disk:\n\(unsynced.joined(separator: "\n"))", sourceLocation: sourceLocation)
        // The order, not only the state: the command's own commit was synced, then acknowledged
        // (seen red with "♥ 21 stored" printed before its commit, when nothing was yet unsynced).
        #expect(
            !trace.syncedWrites(before: acknowledgement, keeps: keeps).isEmpty,
            "\(arguments) acknowledged before any write of it was synced", sourceLocation: sourceLocation)
    }

    @Test func heartsRemovalsAndFlagsAreOnDiskBeforeTheyAreAcknowledged() throws {
        let cli = try CLI()
        let database = cli.database
        let keeps = SyscallTrace.databaseFiles(database)
        // A new database: its file's name too (the directory synced).
        try expectDurable(cli, ["add", "21", "--database", database], acknowledgement: "stored", keeps: keeps)
        try expectDurable(cli, ["add", "33", "--database", database], acknowledgement: "stored", keeps: keeps)
        try expectDurable(cli, ["remove", "21", "--database", database], acknowledgement: "removed", keeps: keeps)
        try expectDurable(cli, ["onboarding", "dismiss", "--database", database], acknowledgement: "dismissed", keeps: keeps)
        try expectDurable(cli, ["settings", "set", "lastView", "favorites", "--database", database], acknowledgement: "lastView", keeps: keeps)
        try expectDurable(cli, ["--json", "add", "17", "--database", database], acknowledgement: "isStored", keeps: keeps)
    }

    @Test func importsExportsAndFileSyncsAreOnDiskBeforeTheyAreAcknowledged() throws {
        let cli = try CLI()
        try cli.run(["add", "21"])
        try cli.run(["add", "33"])
        let export = cli.directory.path("export.json")
        let exportName = FilePathName(export)
        // The export's temporary file, synced, renamed onto the export, the directory synced.
        try expectDurable(
            cli, ["export", "--database", cli.database, "--output", export], acknowledgement: "exported",
            keeps: { $0 == export || exportName.isTemporary($0) })
        // An import into a new file: built beside it, synced, linked into place, the directory synced.
        let imported = cli.directory.path("imported.sqlite3")
        let importedName = FilePathName(imported)
        try expectDurable(
            cli, ["import", export, "--database", imported], acknowledgement: "imported",
            keeps: { SyscallTrace.databaseFiles(imported)($0) || importedName.isTemporary($0) })
        // An import into an existing database.
        try expectDurable(cli, ["import", export, "--database", cli.database], acknowledgement: "imported", keeps: SyscallTrace.databaseFiles(cli.database))
        // A sync between two files: both sides.
        let peer = cli.directory.path("peer.sqlite3")
        try cli.run(["add", "40"], useDatabase: false, environment: ["ARCHIVE_DATABASE": peer])
        try expectDurable(
            cli, ["sync", peer, "--database", cli.database], acknowledgement: "synced",
            keeps: { SyscallTrace.databaseFiles(cli.database)($0) || SyscallTrace.databaseFiles(peer)($0) })
    }

    /// The reader itself: a write followed by no sync, or a new name whose directory was not
    /// synced, is reported (the checks above cannot pass by reading nothing).
    @Test func theTraceReaderReportsWhatIsNotOnDisk() throws {
        let text = """
            100 openat(AT_FDCWD</d>, "/d/f.sqlite3-wal", O_RDWR|O_CREAT|O_CLOEXEC, 0644) = 5</d/f.sqlite3-wal>
            100 pwrite64(5</d/f.sqlite3-wal>, "\\0\\0", 2, 0) = 2
            101 write(2</dev/pts/0>, "\\342\\231\\245 21 stored\\n", 14) = 14
            100 fdatasync(5</d/f.sqlite3-wal> <unfinished ...>
            101 write(2</dev/pts/0>, "again stored\\n", 13) = 13
            100 <... fdatasync resumed>) = 0
            100 write(2</dev/pts/0>, "third stored\\n", 13) = 13
            100 openat(AT_FDCWD</d>, "/d", O_RDONLY|O_CLOEXEC) = 6</d>
            100 fsync(6</d>) = 0
            100 write(2</dev/pts/0>, "fourth stored\\n", 14) = 14
            """
        let trace = SyscallTrace(text: text)
        let keeps = SyscallTrace.databaseFiles("/d/f.sqlite3")
        #expect(trace.unsynced(before: try #require(trace.firstWrite(containing: "21 stored", notTo: keeps)), keeps: keeps).count == 2)
        // Still unsynced while the sync has not returned.
        #expect(trace.unsynced(before: try #require(trace.firstWrite(containing: "again stored", notTo: keeps)), keeps: keeps).count == 2)
        #expect(trace.unsynced(before: try #require(trace.firstWrite(containing: "third stored", notTo: keeps)), keeps: keeps) == [
            "/d (directory) changed, not synced: 100 openat(AT_FDCWD</d>, \"/d/f.sqlite3-wal\", O_RDWR|O_CREAT|O_CLOEXEC, 0644) = 5</d/f.sqlite3-wal>",
        ])
        #expect(trace.unsynced(before: try #require(trace.firstWrite(containing: "fourth stored", notTo: keeps)), keeps: keeps).isEmpty)
    }
}

/// A file's name, to recognize the temporary files written beside it (`.NAME.partial-…`,
/// `.NAME.new-…`) and their journals.
struct FilePathName {
    let directory: String
    let name: String

    init(_ path: String) {
        let url = URL(fileURLWithPath: path)
        directory = url.deletingLastPathComponent().path
        name = url.lastPathComponent
    }

    func isTemporary(_ path: String) -> Bool {
        path.hasPrefix(directory + "/." + name + ".partial-") || path.hasPrefix(directory + "/." + name + ".new-")
    }
}
