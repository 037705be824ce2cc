import Foundation
import TestSupport

/// `archive-server ARGUMENTS --postgres URL`, run to its end: the administration commands of
/// a test that starts its servers itself (`users add`, `devices add`, …).
struct ServiceAdmin {
    let url: String
    let directory: TemporaryDirectory

    /// The command's standard output, trimmed; its standard error thrown if it failed.
    @discardableResult
    func callAsFunction(_ arguments: [String]) throws -> String {
        let result = try ChildProcess.run(
            ServiceProcess.executable.path, arguments + ["--postgres", url], environment: ServiceProcess.environment(directory), timeout: .seconds(60))
        guard result.status == 0 else { throw ServiceFailed(stderr: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The IDs of the favorites a new `archive` device `label` of `user` holds after one
    /// `archive sync` with `server` (its database in the test's directory).
    func favoritesOfNewDevice(_ label: String, of user: String, syncingWith server: String) throws -> Set<Int> {
        let token = try self(["devices", "add", user, label])
        let database = directory.path("\(label).sqlite3")
        let synced = try ServiceProcess.archive(
            ["sync", "--server", server, "--token-stdin"], database: database, in: directory, input: .pipe(Data((token + "\n").utf8)))
        guard synced.status == 0 else { throw ServiceFailed(stderr: "archive sync: \(synced.stderr)") }
        // One page holds them all (the tests' loads acknowledge a few thousand at most).
        let favorites = try ServiceProcess.archive(["favorites", "--json", "--limit", "10000"], database: database, in: directory)
        guard favorites.status == 0 else { throw ServiceFailed(stderr: "archive favorites: \(favorites.stderr)") }
        let rows = (try favorites.json() as? [String: Any])?["favorites"] as? [[String: Any]] ?? []
        guard rows.count < 10_000 else { throw ServiceFailed(stderr: "more favorites than one page: read them all") }
        return Set(rows.compactMap { $0["id"] as? Int })
    }
}
