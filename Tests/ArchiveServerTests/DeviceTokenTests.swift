import ArchiveServerStorage
import ArchiveServer
import ArchiveStorage
import ArchiveSyncWire
import Crypto
import Foundation
import SQLite
import TestSupport
import Testing
import ArchiveSyncModel

/// A token per device, on the real `archive-server` and both backends: `devices add` prints
/// a token that binds to the device ID it first syncs with (another device ID: `403`,
/// nothing read or written); `devices list` shows each device, its cursor and the removals
/// kept for it; `devices revoke` stops the token at once and forgets the device, so the
/// removals it held back go; and a database from before device tokens keeps every device
/// syncing (its one token becomes the user's shared token). Issue 59, §2.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct DeviceTokenTests {
    let phone = Changes.device(0xA1), laptop = Changes.device(0xB2), thief = Changes.device(0xEE)

    /// `devices list USER --json`'s devices.
    private func devices(_ server: ServiceProcess, _ user: String = "alice") throws -> [[String: Any]] {
        let listed = try server.admin(["devices", "list", user, "--json"])
        try #require(listed.status == 0, "\(listed.stderr)")
        return (try listed.json() as? [String: Any])?["devices"] as? [[String: Any]] ?? []
    }

    @Test(arguments: ServiceBackend.allCases)
    func aDeviceTokenBindsToItsFirstDeviceAndRevokingItForgetsTheDevice(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let phoneToken = try server.addUser("alice")
        let laptopToken = try server.addDevice("Laptop", of: "alice")
        #expect(laptopToken.hasPrefix("fa_") && laptopToken.count == 46 && laptopToken != phoneToken)
        let again = try server.admin(["devices", "add", "alice", "laptop"])
        #expect(again.status != 0 && again.stderr.contains("has a device labelled laptop already"), "\(again.stderr)")
        let unknown = try server.admin(["devices", "add", "nobody", "x"])
        #expect(unknown.status != 0 && unknown.stderr.contains("no user named nobody"), "\(unknown.stderr)")
        let badLabel = try server.admin(["devices", "add", "alice", "my phone"])
        #expect(badLabel.status != 0 && badLabel.stderr.contains("invalid device label"), "\(badLabel.stderr)")

        // Before any sync: two tokens, no device.
        var listed = try devices(server)
        #expect(listed.map { $0["label"] as? String } == ["first", "laptop"] && listed.allSatisfy { $0["device"] == nil }, "\(listed)")

        #expect(try server.push([Changes.stored(1, at: 1_000, by: phone), Changes.stored(2, at: 1_000, by: phone)], device: phone, through: 2, token: phoneToken).status == 200)
        let (pulled, page) = try server.pull(device: laptop, token: laptopToken)
        #expect(pulled.status == 200 && page?.changes.count == 2)

        // Bound: the phone's token with another device ID, or the laptop's, is refused (403),
        // and nothing of the request is written or read.
        let stolen = try server.push([Changes.removed(1, at: 9_000, by: thief)], device: thief, through: 1, token: phoneToken)
        #expect(stolen.status == 403 && stolen.text.contains("belongs to another device"), "\(stolen.status) \(stolen.text)")
        #expect(try server.pull(device: thief, token: phoneToken).0.status == 403)
        #expect(try server.pull(device: phone, token: laptopToken).0.status == 403, "the laptop's token passed as the phone")
        #expect(try server.pull(device: thief, limit: 0, token: laptopToken).0.status == 403, "a probe passed")
        #expect(try server.pull(device: laptop, token: laptopToken).1?.changes.compactMap(\.favorite).count == 2, "the refused push was written")

        // The list: each device, its cursor, the removals kept for it.
        #expect(try server.push([Changes.removed(2, at: 2_000, by: phone)], device: phone, through: 3, token: phoneToken).status == 200)
        let cursor = try #require(try server.pull(device: phone, token: phoneToken).1).cursor
        _ = try server.pull(device: phone, cursor: cursor, token: phoneToken)
        listed = try devices(server)
        // A label listed twice fails this test, not the whole test process.
        let labels = listed.compactMap { $0["label"] as? String }
        #expect(Set(labels).count == labels.count, "a label listed twice: \(labels)")
        let byLabel = Dictionary(listed.compactMap { row in (row["label"] as? String).map { ($0, row) } }, uniquingKeysWith: { first, _ in first })
        #expect(byLabel["first"]?["device"] as? String == phone.description && byLabel["laptop"]?["device"] as? String == laptop.description, "\(listed)")
        #expect(byLabel["first"]?["tombstonesHeld"] as? Int == 0 && byLabel["laptop"]?["tombstonesHeld"] as? Int == 1, "\(listed)")
        #expect(byLabel["first"]?["pulled"] as? Int == 3 && byLabel["laptop"]?["pushed"] as? Int == 0, "\(listed)")
        #expect((byLabel["laptop"]?["lastSeen"] as? Int ?? 0) > 0 && byLabel["laptop"]?["shared"] as? Bool == false, "\(listed)")
        let text = try server.admin(["devices", "list", "alice"]).stdout
        #expect(text.contains("laptop\t\(laptop.description)") && text.contains("1 removals kept for it"), "\(text)")

        // The laptop is lost: revoked, its token stops at once for a pull, a push and its
        // open event stream (ended, not left hearing pushes), and the removal it held back goes.
        let stream = try RawHTTPConnection(url: server.url)
        #expect(stream.send("GET \(SyncAPI.eventsPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(laptopToken)\r\n\r\n"))
        _ = try stream.read(until: "retry: 2000")
        let revoked = try server.admin(["devices", "revoke", "alice", "LAPTOP"])
        #expect(revoked.status == 0 && revoked.stderr.contains("device laptop of alice is signed out"), "\(revoked.stderr)")
        #expect(try server.pull(device: laptop, token: laptopToken).0.status == 401)
        #expect(try server.push([Changes.stored(5, at: 5_000, by: laptop)], device: laptop, through: 1, token: laptopToken).status == 401)
        #expect(stream.waitForClose(timeout: .seconds(60)), "the revoked laptop's event stream is still open")
        #expect(try devices(server).map { $0["label"] as? String } == ["first"])
        _ = try server.pull(device: phone, cursor: cursor, token: phoneToken)
        let tombstones = backend == .sqlite
            ? try Database(path: server.database).fetchOne("SELECT count(*) FROM user_favorites WHERE removed = 1") { try $0.int(at: 0) } ?? -1
            : Int(try TestPostgres.server().query("SELECT count(*) FROM user_favorites WHERE removed", in: server.database)) ?? -1
        #expect(tombstones == 0, "\(backend): the revoked device still holds a removal back")
        let missing = try server.admin(["devices", "revoke", "alice", "laptop"])
        #expect(missing.status != 0 && missing.stderr.contains("has no device labelled laptop"), "\(missing.stderr)")
        // A new token for the same device ID, after the revoke: it binds again, but the
        // laptop's copy is older than the removal dropped while it was forgotten: refused
        // (410), saying to start it afresh, rather than bring favorite 2 back.
        let renewed = try server.addDevice("laptop-2", of: "alice")
        let laptopCursor = try #require(page).cursor
        let forgotten = try server.pull(device: laptop, cursor: laptopCursor, token: renewed).0
        #expect(forgotten.status == 410 && forgotten.text.contains("start this device from a new database"), "\(forgotten.status) \(forgotten.text)")
        #expect(try server.pull(device: laptop, token: renewed).0.status == 200)
        // `users token` ends every device's token and gives one new one.
        let fresh = try server.admin(["users", "token", "alice"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try server.pull(device: phone, token: phoneToken).0.status == 401 && server.pull(device: laptop, token: renewed).0.status == 401)
        #expect(try server.pull(device: laptop, token: fresh).0.status == 200)
    }

    /// A database of the schema before device tokens (version 2), with a user whose devices
    /// shared one token: after the upgrade every device keeps syncing with it, `devices
    /// list` shows them under the shared token, a device that takes a token of its own
    /// leaves it (the shared one then refused for that device), and revoking the shared
    /// token stops the others at once.
    @Test(arguments: ServiceBackend.allCases)
    func anOldSharedTokenKeepsEveryDeviceSyncingUntilRevoked(backend: ServiceBackend) throws {
        let directory = try TemporaryDirectory()
        let token = AccessToken.generate()
        let hash = token.hash.map { String(format: "%02x", $0) }.joined()
        let storage: String
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations").appendingPathComponent(backend == .sqlite ? "Server" : "Postgres")
        let files = try FileManager.default.contentsOfDirectory(atPath: migrations.path).filter { $0 < "0003" }.sorted()
        #expect(files.count == 2, "\(files)")
        let old = try files.map { name -> (name: String, sql: String, checksum: String) in
            let sql = try String(contentsOf: migrations.appendingPathComponent(name), encoding: .utf8)
            return (name, sql, SHA256.hash(data: Array(sql.utf8)).map { String(format: "%02x", $0) }.joined())
        }
        let device = { (byte: UInt8) in Changes.device(byte).description }
        switch backend {
        case .sqlite:
            storage = directory.path("server.sqlite3")
            let migrator = try Migrator(migrations: try old.map { try Migration(fileName: $0.name, sql: $0.sql, checksum: $0.checksum) })
            let queue = try DatabaseQueue(path: storage, migrator: migrator)
            try queue.write { db in
                try db.execute("INSERT INTO users (name, token_hash, feed, created_at) VALUES ('alice', x'\(hash)', randomblob(16), 1)")
                try db.execute("INSERT INTO users (name, token_hash, feed, created_at) VALUES ('bob', NULL, randomblob(16), 1)")
                for byte in [0xA1, 0xB2] as [UInt8] {
                    try db.execute("INSERT INTO user_devices (user, device, pushed, pulled, last_seen) VALUES (1, x'\(device(byte))', 0, 0, 1)")
                }
                try db.execute("INSERT INTO user_devices (user, device, pushed, pulled, last_seen) VALUES (2, x'\(device(0xC3))', 0, 0, 1)")
            }
            queue.close()
        case .postgres:
            let postgres = try TestPostgres.server()
            storage = try postgres.newDatabase()
            var sql = "CREATE TABLE archive_server_migrations (version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());\n"
            for (index, migration) in old.enumerated() {
                sql += migration.sql + ";\n"
                let name = migration.name.dropFirst(5).dropLast(4)
                sql += "INSERT INTO archive_server_migrations (version, name, checksum) VALUES (\(index + 1), '\(name)', '\(migration.checksum)');\n"
            }
            sql += "INSERT INTO users (name, token_hash, feed, created_at) VALUES ('alice', '\\x\(hash)', '\\x\(device(0x01))', 1), ('bob', NULL, '\\x\(device(0x02))', 1);\n"
            sql += "INSERT INTO user_devices (user_id, device, pushed, pulled, last_seen) SELECT 1, decode(d, 'hex'), 0, 0, 1 FROM unnest(ARRAY['\(device(0xA1))', '\(device(0xB2))']) AS d;\n"
            sql += "INSERT INTO user_devices (user_id, device, pushed, pulled, last_seen) VALUES (2, '\\x\(device(0xC3))', 0, 0, 1);\n"
            _ = try postgres.query(sql, in: storage)
        }
        let server = try ServiceProcess(backend, database: storage, directory: directory)
        // Both devices sync with the one old token.
        #expect(try server.push([Changes.stored(1, at: 1_000, by: phone)], device: phone, through: 1, token: token.text).status == 200)
        #expect(try server.pull(device: laptop, token: token.text).1?.changes.count == 1)
        var listed = try devices(server)
        #expect(listed.count == 2 && listed.allSatisfy { $0["label"] as? String == "shared" && $0["shared"] as? Bool == true }, "\(listed)")
        #expect(Set(listed.compactMap { $0["device"] as? String }) == [phone.description, laptop.description], "\(listed)")
        // Bob's token had been revoked: his device was forgotten, and he has no token.
        #expect(try devices(server, "bob").isEmpty)

        // The phone takes a token of its own: it leaves the shared one.
        let phoneToken = try server.addDevice("phone", of: "alice")
        #expect(try server.pull(device: phone, token: phoneToken).0.status == 200)
        #expect(try server.pull(device: phone, token: token.text).0.status == 403, "the shared token still passes as the phone")
        listed = try devices(server)
        #expect(listed.first { $0["label"] as? String == "phone" }?["device"] as? String == phone.description, "\(listed)")
        #expect(listed.filter { $0["label"] as? String == "shared" }.count == 1, "\(listed)")
        // The shared token revoked: the laptop is out at once, the phone syncs on.
        #expect(try server.admin(["devices", "revoke", "alice", "shared"]).status == 0)
        #expect(try server.pull(device: laptop, token: token.text).0.status == 401)
        #expect(try server.push([Changes.stored(2, at: 2_000, by: phone)], device: phone, through: 2, token: phoneToken).status == 200)
    }
}
