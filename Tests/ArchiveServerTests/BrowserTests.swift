import ArchiveServerStorage
import ArchiveServerSQLite
import ArchiveServer
import ArchiveStorage
import Foundation
import TestSupport
import Testing

/// The web page in a real browser: Debian's chromium, headless, driven by Selenium
/// (`Tests/Browser/web_page.py`, run by `/usr/bin/python3`, whose python3-selenium `.ci/run`
/// installs, in a virtual environment that adds axe-core) against the real `archive-server`
/// and `archive` binaries. A missing browser, driver, Selenium or axe fails the test: it
/// never skips.
///
/// `FAVORITE_ARCHIVE_WEB_SHOTS=DIR` keeps the screenshots (docs/images/ has them).
@Suite(.timeLimit(.minutes(10)))
struct BrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/web_page.py")

    /// Debian's `/usr/bin/python3` with its python3-selenium, in the virtual environment that
    /// adds axe-selenium-python (axe-core), as `scripts/install-python-tools.sh` makes it.
    static func python() throws -> String {
        let root = script.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let located = try ChildProcess.run("/bin/bash", [root.appendingPathComponent("scripts/install-python-tools.sh").path, "--path", "python-axe"])
        let path = located.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard located.status == 0, FileManager.default.isExecutableFile(atPath: path) else {
            throw ServiceFailed(stderr: "axe-selenium-python is not installed (\(path)): run bash scripts/install-python-tools.sh (.ci/run does)")
        }
        return path
    }

    @Test("chromium: sign in by link, search チーズ with the 洋食 chip, heart and un-heart, both ways with a CLI device, live, hostile text, refused links, phone and desktop")
    func browser() async throws {
        let server = try ServiceProcess()
        let tokens = try server.addUserWithDevices("alice")
        // A favorite whose name a hostile device wrote as HTML.
        let device = Changes.device(6)
        let change = Changes.hostile(
            900, by: device, photoUrl: "https://photos.favorite-archive.example/x.jpg", dishName: "<img src=x onerror=window.__pwned=1>",
            shopName: "<script>window.__pwned=2</script>")
        #expect(try server.push([change], device: device, token: try tokens(device)).status == 200)
        // A link used already, and one past its 10 minutes.
        let used = try WebClient.link(server, user: "alice", label: "used")
        #expect(try WebClient.signIn(server, secret: WebClient.secret(of: used)).status == 303)
        let database = try ServerDatabase(path: server.database)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let old = try UserStore(database: database).createSignInLink(for: "alice", label: "old", now: now - 700_000, expiresAt: now - 100_000)
        database.close()
        let cli = server.directory.path("laptop.sqlite3")
        var environment = ServiceProcess.environment(server.directory)
        environment["WEB_URL"] = server.url
        environment["WEB_LINK"] = try WebClient.link(server, user: "alice", label: "phone")
        environment["WEB_ZOOM_LINK"] = try WebClient.link(server, user: "alice", label: "tablet")
        environment["WEB_SERVER_PID"] = "\(server.process.pid)"
        environment["WEB_USED_LINK"] = used
        environment["WEB_OLD_LINK"] = server.url + "/signin?link=" + old.text
        environment["ARCHIVE"] = BuiltProduct.url(named: "archive").path
        environment["ARCHIVE_DB"] = cli
        environment["ARCHIVE_SYNC_TOKEN"] = try tokens.database(cli)
        environment["ARCHIVE_API_URL"] = nil
        environment["ARCHIVE_DATABASE"] = nil
        environment["NO_COLOR"] = "1"
        environment["WEB_SCENARIOS"] = nil
        environment["WEB_SHOTS"] = ProcessInfo.processInfo.environment["FAVORITE_ARCHIVE_WEB_SHOTS"] ?? server.directory.path("")
        let result = try ChildProcess.run(try Self.python(), [Self.script.path], environment: environment, timeout: .seconds(400))
        #expect(result.status == 0, "the browser scenarios failed:\n\(result.stdout)\n\(result.stderr)")
        for scenario in [
            "scenario_search_heart_sync", "scenario_favorites_and_hostile_text", "scenario_installable", "scenario_dark_mode", "scenario_desktop",
            "scenario_refused_links", "scenario_stream_refused_then_reopened", "scenario_accessibility", "scenario_offline",
            "scenario_offline_hearts", "scenario_sign_out_clears",
        ] {
            #expect(result.stdout.contains("passed: \(scenario)"), "\(scenario) did not pass:\n\(result.stdout)\n\(result.stderr)")
        }
        print(result.stdout.split(separator: "\n").filter { $0.hasPrefix("live:") }.joined(separator: "\n"))
    }
}
