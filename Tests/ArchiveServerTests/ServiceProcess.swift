import ArchiveStorage
import ArchiveSyncWire
import Foundation
import TestSupport
import ArchiveSyncModel

/// A running `archive-server` on a database of its own (an SQLite file in a temporary
/// directory, or a new database on the test process's PostgreSQL), on a free port; stopped
/// (SIGTERM, then waited for) when the test ends.
final class ServiceProcess {
    static let executable = BuiltProduct.url(named: "archive-server")

    let directory: TemporaryDirectory
    let backend: ServiceBackend
    /// The SQLite file, or the PostgreSQL URL.
    let database: String
    let process: ChildProcess
    let url: String

    /// The storage options that name this server's database.
    var storageArguments: [String] { backend == .sqlite ? ["--database", database] : ["--postgres", database] }

    /// Starts the server with `arguments` on a new database of `backend` (or `database`);
    /// `launcher`, when given, is the command that runs it (its arguments follow);
    /// `environment` is added to ``environment(_:)``.
    init(
        _ backend: ServiceBackend = .sqlite, arguments: [String] = [], database: String? = nil, directory: TemporaryDirectory? = nil,
        launcher: [String] = [], environment: [String: String] = [:]
    ) throws {
        let directory = try directory ?? TemporaryDirectory()
        self.directory = directory
        self.backend = backend
        switch backend {
        case .sqlite: self.database = database ?? directory.path("server.sqlite3")
        case .postgres: self.database = try database ?? TestPostgres.server().newDatabase()
        }
        let storage = backend == .sqlite ? ["--database", self.database] : ["--postgres", self.database]
        let command = launcher + [Self.executable.path] + storage + ["--port", "0"] + arguments
        process = try ChildProcess(
            command[0], Array(command.dropFirst()), environment: Self.environment(directory).merging(environment) { $1 }, streamingStdout: true)
        url = process.nextLine()?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard url.hasPrefix("http://127.0.0.1:") || url.hasPrefix("https://127.0.0.1:") else {
            throw ServiceFailed(stderr: process.kill().stderr)
        }
    }

    deinit {
        process.signal(SIGTERM)
        process.wait()
    }

    /// Stops the server as an operator would (SIGTERM) and returns how it ended (`nil`: it
    /// had not exited within a minute, and was killed).
    func stop() -> ChildProcess.Result? {
        process.signal(SIGTERM)
        return process.wait(orKillAfter: .seconds(60))
    }

    /// The environment of a child: HOME in the temporary directory, no service variables.
    static func environment(_ directory: TemporaryDirectory) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["ARCHIVE_SERVER_DATABASE"] = nil
        environment["ARCHIVE_SERVER_POSTGRES"] = nil
        environment["ARCHIVE_SYNC_TOKEN"] = nil
        environment["XDG_DATA_HOME"] = nil
        // A service manager's socket of the test run's own is not the server's to tell.
        environment["NOTIFY_SOCKET"] = nil
        environment["HOME"] = directory.url.path
        return environment
    }

    /// Runs `archive SUBCOMMAND --database DATABASE REST…` with `environment(directory)`
    /// (no token, database or catalog variables of the machine's) and waits for it.
    static func archive(
        _ arguments: [String], database: String, in directory: TemporaryDirectory, environment extra: [String: String] = [:],
        input: ChildProcess.Input = .null
    ) throws -> ChildProcess.Result {
        var environment = Self.environment(directory)
        environment["ARCHIVE_DATABASE"] = nil
        environment["ARCHIVE_API_URL"] = nil
        environment["NO_COLOR"] = "1"
        return try ChildProcess.run(
            BuiltProduct.url(named: "archive").path, [arguments[0], "--database", database] + arguments.dropFirst(),
            environment: environment.merging(extra) { $1 }, input: input, timeout: .seconds(120))
    }

    /// Runs `archive-server ARGUMENTS <this database's storage options>` and waits for it.
    @discardableResult
    func admin(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(Self.executable.path, arguments + storageArguments, environment: Self.environment(directory), timeout: .seconds(60))
    }

    /// Adds user `name` and returns its token.
    func addUser(_ name: String) throws -> String {
        let result = try admin(["users", "add", name])
        guard result.status == 0 else { throw ServiceFailed(stderr: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Adds user `name` and returns its devices' tokens: each device ID asked for gets a
    /// token of its own (`devices add`), as each of a user's devices does.
    func addUserWithDevices(_ name: String) throws -> DeviceTokens {
        _ = try addUser(name)
        return DeviceTokens(server: self, user: name)
    }

    /// A new token for device `label` of user `user` (`devices add`).
    func addDevice(_ label: String, of user: String) throws -> String {
        let result = try admin(["devices", "add", user, label])
        guard result.status == 0 else { throw ServiceFailed(stderr: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends one request on a connection of its own and reads the answer.
    func call(
        _ method: String, _ target: String, token: String? = nil, headers: [String] = [], body: [UInt8]? = nil, timeout: Duration = .seconds(10)
    ) throws -> RawHTTPConnection.Response {
        try Self.call(url, method, target, token: token, headers: headers, body: body, timeout: timeout)
    }

    /// Sends one request to the server at `url` on a connection of its own and reads the
    /// answer (from any thread: a test's own clients).
    static func call(
        _ url: String, _ method: String, _ target: String, token: String? = nil, headers: [String] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(10)
    ) throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(url: url)
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for header in headers { head += header + "\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        head += "\r\n"
        connection.send(Array(head.utf8) + (body ?? []))
        return try connection.readResponse(hasBody: method != "HEAD", timeout: timeout)
    }

    /// Pushes `changes` as `device` with `token` to the server at `url`.
    static func push(
        _ url: String, _ changes: [FavoriteChange], device: DeviceID, through: Int64 = 0, seen: Int64 = 0, token: String,
        timeout: Duration = .seconds(10)
    ) throws -> RawHTTPConnection.Response {
        let request = SyncPushRequest(device: device, through: through, seen: seen, changes: changes.map(WireChange.init))
        return try call(url, "POST", SyncAPI.pushPath, token: token, body: Array(try JSONEncoder().encode(request)), timeout: timeout)
    }

    /// Pushes `changes` as `device` with `token`.
    func push(
        _ changes: [FavoriteChange], device: DeviceID, through: Int64 = 0, seen: Int64 = 0, token: String, timeout: Duration = .seconds(10)
    ) throws -> RawHTTPConnection.Response {
        try Self.push(url, changes, device: device, through: through, seen: seen, token: token, timeout: timeout)
    }

    /// Pulls as `device` with `token` from `cursor`, waiting at most `timeout` for the answer.
    func pull(
        device: DeviceID, cursor: Int64 = 0, limit: Int? = nil, token: String, timeout: Duration = .seconds(10)
    ) throws -> (RawHTTPConnection.Response, SyncPullResponse?) {
        var target = "\(SyncAPI.pullPath)?device=\(device)&cursor=\(cursor)"
        if let limit { target += "&limit=\(limit)" }
        let response = try call("GET", target, token: token, timeout: timeout)
        return (response, response.status == 200 ? try JSONDecoder().decode(SyncPullResponse.self, from: Data(response.body)) : nil)
    }
}

/// `archive-server` failed to start or to add a user.
struct ServiceFailed: Error, CustomStringConvertible {
    let stderr: String
    var description: String { "archive-server failed: \(stderr)" }
}

/// Changes for the tests: favorite `id` stored (fields derived from `id` and `text`) or
/// removed, stamped at `time` (milliseconds) by `device`.
enum Changes {
    static func stored(_ id: Int, at time: Int64, by device: DeviceID, text: String = "") -> FavoriteChange {
        let object = StoredArchiveObject(
            id: id, photoUrl: "https://example.com/\(id).jpg", category: "洋食", dishName: "dish \(id)\(text)",
            shopName: "shop", introduction: "intro \(text)", storedAt: Date(millisecondsSince1970: 1_700_000_000_000 + Int64(id)))
        return FavoriteChange(id: id, stamp: ChangeStamp(time: HybridTimestamp(milliseconds: time), device: device), state: .stored(object))
    }

    /// Favorite `id` stored with the texts a hostile device wrote (stamped 2023-11-14).
    static func hostile(_ id: Int, by device: DeviceID, photoUrl: String, category: String = "洋食", dishName: String, shopName: String, introduction: String = "") -> FavoriteChange {
        let object = StoredArchiveObject(
            id: id, photoUrl: photoUrl, category: category, dishName: dishName, shopName: shopName, introduction: introduction,
            storedAt: Date(millisecondsSince1970: 1_700_000_000_000))
        return FavoriteChange(id: id, stamp: ChangeStamp(time: HybridTimestamp(milliseconds: 1_700_000_000_000), device: device), state: .stored(object))
    }

    static func removed(_ id: Int, at time: Int64, by device: DeviceID) -> FavoriteChange {
        FavoriteChange(id: id, stamp: ChangeStamp(time: HybridTimestamp(milliseconds: time), device: device), state: .removed)
    }

    static func device(_ byte: UInt8) -> DeviceID {
        DeviceID(bytes: [UInt8](repeating: byte, count: 16))!
    }
}
