import ArchiveSyncModel
import ArchiveStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SQLite
import Synchronization
import TestSupport
import Testing

/// Backups that converge (issue 59, §3), on the real binaries: a backup taken while a device
/// pushes, more changes synced after it, then the backup put back in place. A heart made
/// after the restore takes the copy's next position, and another device's resend of what
/// the copy lacks runs past the position a third device's cursor names; every device and a
/// newcomer still end with the same favorites, nothing lost, no manual step on a device. SQLite: `archive-server backup PATH`, then
/// `archive-server restore PATH`; PostgreSQL: `pg_dump`, `pg_restore` into a new database and
/// `archive-server restore --from` the old one.
/// (Seen red with the backup's feeds kept: a device read on from its old cursor and missed
/// the changes the restored service gave those positions.)
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct BackupRestoreTests {
    private func archive(_ arguments: [String], _ database: String, _ tokens: DeviceTokens) throws -> ChildProcess.Result {
        try ServiceProcess.archive(arguments, database: database, in: tokens.server.directory, environment: ["ARCHIVE_SYNC_TOKEN": try tokens.database(database)])
    }

    private func favorites(_ database: String, in directory: TemporaryDirectory) throws -> [Int: String] {
        let result = try ServiceProcess.archive(["favorites", "--json", "--limit", "10000"], database: database, in: directory)
        let rows = (try result.json() as? [String: Any])?["favorites"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: rows.compactMap { row in (row["id"] as? Int).map { ($0, row["introduction"] as? String ?? "") } })
    }

    @Test(arguments: ServiceBackend.allCases)
    func aBackupPutBackConvergesWithNothingLost(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        let directory = server.directory
        let phone = directory.path("phone.sqlite3"), laptop = directory.path("laptop.sqlite3"), tablet = directory.path("tablet.sqlite3")
        func sync(_ database: String, _ url: String) throws {
            let result = try archive(["sync", "--server", url], database, tokens)
            #expect(result.status == 0, "\(database): \(result.stderr)")
        }
        for id in 1...5 { #expect(try archive(["add", "\(id)"], phone, tokens).status == 0) }
        for database in [phone, laptop, tablet] { try sync(database, server.url) }

        // A device to come later: its token made now, so that the restored copy has it too.
        let newcomer = directory.path("newcomer.sqlite3")
        _ = try tokens.database(newcomer)

        // The backup, while another device pushes batch after batch.
        let loader = Changes.device(0x4C), loaderToken = try tokens(loader), url = server.url
        let stop = Atomic<Bool>(false)
        let acknowledged = Mutex<[Int]>([])
        let finished = DispatchSemaphore(value: 0)
        let load = Thread {
            defer { finished.signal() }
            var next = 1_000
            while !stop.load(ordering: .relaxed) {
                let batch = (next..<next + 20).map { Changes.stored($0, at: 1_700_000_000_000 + Int64($0), by: loader) }
                if (try? ServiceProcess.push(url, batch, device: loader, through: Int64(next - 980), token: loaderToken).status) == 200 {
                    acknowledged.withLock { $0 += batch.map(\.id) }
                }
                next += 20
            }
        }
        load.start()
        // Stopped however the test ends, and waited for (its last push answered or timed out).
        var loadEnded = false
        func endLoad() {
            guard !loadEnded else { return }
            loadEnded = true
            stop.store(true, ordering: .relaxed)
            _ = finished.wait(timeout: .now() + .seconds(60))
        }
        defer { endLoad() }
        #expect(Deadline.poll(every: .milliseconds(10)) { acknowledged.withLock { $0.count } >= 40 }, "the load never pushed")
        let backup = directory.path("backup.sqlite3"), dump = directory.path("backup.dump")
        switch backend {
        case .sqlite:
            let written = try server.admin(["backup", backup, "--json"])
            #expect(written.status == 0, "\(written.stderr)")
            let said = try written.json() as? [String: Any]
            #expect((said?["bytes"] as? Int ?? 0) > 0 && ((said?["feeds"] as? [String: Any])?["alice"] as? Int ?? 0) >= 5, "\(written.stdout)")
            let copy = try Database(path: backup)
            #expect(try copy.fetchAll("PRAGMA integrity_check") { try $0.column(String.self, at: 0) } == ["ok"])
            // A whole moment of the feed: its last seq is the user's.
            let (seq, last) = try #require(try copy.fetchOne("SELECT seq, (SELECT max(seq) FROM user_favorites) FROM users") { (try $0.int64(at: 0), try $0.int64(at: 1)) })
            #expect(seq == last, "the backup holds the feed to \(last), its user says \(seq)")
        case .postgres:
            try TestPostgres.server().dump(server.database, to: dump)
        }
        #expect(Deadline.poll(every: .milliseconds(10)) { acknowledged.withLock { $0.count } >= 200 }, "the load stopped")
        endLoad()

        // After the backup: changes on the phone and the laptop, synced (the tablet stays
        // offline: the copy knows all it pushed).
        for id in 6...10 { #expect(try archive(["add", "\(id)"], phone, tokens).status == 0) }
        #expect(try archive(["remove", "1"], laptop, tokens).status == 0)
        for database in [phone, laptop, phone] { try sync(database, server.url) }
        var expected = try favorites(phone, in: directory)
        #expect(expected[1] == nil && expected[10] != nil && expected.count >= 9 + 200, "\(expected.count)")
        #expect(try favorites(laptop, in: directory) == expected, "the laptop before the restore")

        // The backup put back in place.
        _ = server.stop()
        let restored: ServiceProcess
        switch backend {
        case .sqlite:
            let put = try ChildProcess.run(
                ServiceProcess.executable.path, ["--database", server.database, "restore", backup], environment: ServiceProcess.environment(directory), timeout: .seconds(60))
            #expect(put.status == 0 && put.stdout.contains("1 user(s), each with a new feed"), "\(put.stderr)")
            restored = try ServiceProcess(.sqlite, database: server.database, directory: directory)
        case .postgres:
            let url = try TestPostgres.server().restore(dump)
            let renewed = try ChildProcess.run(
                ServiceProcess.executable.path, ["--postgres", url, "restore", "--from", server.database], environment: ServiceProcess.environment(directory),
                timeout: .seconds(60))
            #expect(renewed.status == 0 && renewed.stdout.contains("1 user(s), each with a new feed"), "\(renewed.stderr)")
            restored = try ServiceProcess(.postgres, database: url, directory: directory)
        }
        // The tablet hearts 20 and syncs first: 20 takes the copy's next position. The laptop
        // then sends all the copy lacks, past the phone's cursor, before the phone syncs.
        #expect(try archive(["add", "20"], tablet, tokens).status == 0)
        for database in [tablet, laptop, phone, tablet, laptop, phone] { try sync(database, restored.url) }
        expected[20] = try favorites(tablet, in: directory)[20]
        #expect(expected[20] != nil)
        for (name, database) in [("laptop", laptop), ("phone", phone), ("tablet", tablet)] {
            let held = try favorites(database, in: directory)
            #expect(held == expected, "\(backend): the \(name) lacks \(Set(expected.keys).subtracting(held.keys).sorted().prefix(8)), has more: \(Set(held.keys).subtracting(expected.keys).sorted().prefix(8))")
        }
        try sync(newcomer, restored.url)
        #expect(try favorites(newcomer, in: directory) == expected, "\(backend): the service lacks what the devices hold")
    }

    /// A backup is refused onto the service's own file, and a failed one leaves nothing.
    @Test func aBackupIsRefusedOntoTheDatabaseAndOnAMissingDirectory() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        let own = try server.admin(["backup", server.database])
        #expect(own.status != 0 && own.stderr.contains("it is the service's own database"), "\(own.stderr)")
        let nowhere = try server.admin(["backup", server.directory.path("missing/backup.sqlite3")])
        #expect(nowhere.status != 0 && nowhere.stderr.contains("cannot write the backup"), "\(nowhere.stderr)")
        let postgres = try ChildProcess.run(
            ServiceProcess.executable.path, ["--postgres", "postgres://archive@/nowhere?host=/nonexistent", "backup", server.directory.path("b.sqlite3")],
            environment: ServiceProcess.environment(server.directory), timeout: .seconds(60))
        #expect(postgres.status != 0 && postgres.stderr.contains("pg_dump"), "\(postgres.stderr)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: server.directory.url.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// A backup goes only to a regular file or a new name (before: `backup /dev/null`
    /// replaced `/dev/null` with an 80 KiB database, a FIFO likewise). Tried on a character
    /// device node of the test's own (`mknod`, major 1 minor 3: the same device as `/dev/null`, in the test's
    /// directory, so that a failure replaces nothing of the machine's), a FIFO, a link to
    /// each, a directory; a link to a regular file is followed as `archive export -o` follows
    /// it: its target is replaced, the link stays a link.
    @Test func aBackupGoesOnlyToARegularFileOrANewName() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        let directory = server.directory
        let device = directory.path("null"), fifo = directory.path("fifo")
        #expect(mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0, "mknod: \(String(cString: strerror(errno)))")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(symlink(device, directory.path("to-null")) == 0 && symlink(fifo, directory.path("to-fifo")) == 0)
        #expect(mkdir(directory.path("folder"), 0o700) == 0)
        for (name, kind) in [("null", "a character device"), ("fifo", "a FIFO"), ("to-null", "a character device"), ("to-fifo", "a FIFO"), ("folder", "a directory")] {
            let refused = try server.admin(["backup", directory.path(name)])
            #expect(refused.status == 1, "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("cannot write the backup \(directory.path(name)): it is \(kind)"), "\(name): \(refused.stderr)")
        }
        func type(_ path: String) -> FileAttributeType? {
            (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType  // the entry itself, a link unfollowed
        }
        #expect(type(device) == .typeCharacterSpecial, "the device node was replaced")
        #expect(type(fifo) != .typeRegular && type(fifo) != nil, "the FIFO was replaced")
        // A link to a regular file: the file is replaced by the backup, the link kept.
        let file = directory.path("old.sqlite3")
        #expect(TestFile.create(atPath: file, contents: Data("an older backup".utf8)))
        #expect(symlink(file, directory.path("latest")) == 0)
        let written = try server.admin(["backup", directory.path("latest")])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(type(directory.path("latest")) == .typeSymbolicLink, "the link was replaced")
        let header = try #require(FileManager.default.contents(atPath: file))
        #expect(header.starts(with: Data("SQLite format 3".utf8)), "the link's target is not the backup")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
