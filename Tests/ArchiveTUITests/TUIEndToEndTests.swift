import Foundation
import TestSupport
import Testing

/// Runs the real `archive-tui` inside tmux, types like a person, reads the screen.
@Suite(.serialized)
struct TUIEndToEndTests {
    let directory: TemporaryDirectory
    let socket = "archive-tui-tests-\(UUID().uuidString.prefix(8))"
    let session = "tui"
    let tmux: String

    init() throws {
        directory = try TemporaryDirectory()
        let candidates = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"]
        guard let tmux = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw TUITestError("tmux is not installed: `apt-get install -y tmux` (.ci/run installs it)")
        }
        self.tmux = tmux
    }

    struct TUITestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @discardableResult
    func tmux(_ arguments: String...) throws -> String {
        try ChildProcess.run(tmux, ["-L", socket] + arguments).stdout
    }

    func screen() throws -> String {
        try tmux("capture-pane", "-p", "-t", session)
    }

    /// Polls the screen until `condition` holds, failing after `timeout` with the last screen.
    @discardableResult
    func waitForScreen(_ what: String, timeout: Duration = .seconds(15), _ condition: (String) -> Bool) throws -> String {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        var pause = Duration.milliseconds(5)
        while ContinuousClock.now < deadline {
            last = try screen()
            if condition(last) { return last }
            // Back off (5 ms doubling to 200 ms): the TUI gets the CPU instead of tmux polls.
            Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18)
            pause = min(pause * 2, .milliseconds(200))
        }
        throw TUITestError("timed out waiting for \(what); the screen was:\n\(last)")
    }

    func sessionIsRunning() throws -> Bool {
        try ChildProcess.run(tmux, ["-L", socket, "has-session", "-t", session]).status == 0
    }

    @Test func dismissOnboardingSearchHeartARowQuitAndTheFavoriteIsStored() throws {
        let database = directory.path("tui.sqlite3")
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { _ = try? tmux("kill-server") }
        try tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30",
                 "env -u ARCHIVE_API_URL TERM=xterm-256color '\(tui)' --database '\(database)'")

        try waitForScreen("the onboarding overlay") { $0.contains("Welcome to FavoriteArchive") }
        try tmux("send-keys", "-t", session, "Enter")
        try waitForScreen("the catalog behind the overlay") { !$0.contains("Welcome") && $0.contains("66 dishes") }

        try tmux("send-keys", "-t", session, "-l", "チーズ")
        try tmux("send-keys", "-t", session, "Enter")
        try waitForScreen("the search results") { $0.contains("8 dishes") && $0.contains("チーズハンバーグ") }

        try tmux("send-keys", "-t", session, "Down")
        try tmux("send-keys", "-t", session, "Space")
        let hearted = try waitForScreen("the heart on チーズハンバーグ") { $0.contains("♥ チーズハンバーグ") }
        #expect(hearted.contains("8 dishes, 1 ♥"))

        try tmux("send-keys", "-t", session, "q")
        let deadline = ContinuousClock.now + .seconds(10)
        while try sessionIsRunning(), ContinuousClock.now < deadline {}
        #expect(try !sessionIsRunning(), "archive-tui did not quit on q")

        let favorites = try ChildProcess.run(
            BuiltProduct.url(named: "archive").path, ["favorites", "--json", "--database", database])
        #expect(favorites.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(favorites.stdout.utf8)) as? [String: Any]
        let ids = (json?["favorites"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
        #expect(ids == [17])

        // The onboarding flag was persisted: a second launch shows no overlay, and
        // starts where the user left off (the last search, remembered).
        try tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30",
                 "env -u ARCHIVE_API_URL '\(tui)' --database '\(database)'")
        let second = try waitForScreen("the second launch") { $0.contains("8 dishes, 1 ♥ · “チーズ”") }
        #expect(!second.contains("Welcome"))
        #expect(second.contains("Search › チーズ"))
        try tmux("send-keys", "-t", session, "C-c")
        let end = ContinuousClock.now + .seconds(10)
        while try sessionIsRunning(), ContinuousClock.now < end {}
        #expect(try !sessionIsRunning(), "archive-tui did not quit on ctrl-c")
    }

    @Test func anotherProcessAddingAFavoriteShowsUpWithoutARestart() throws {
        let database = directory.path("shared.sqlite3")
        let archive = BuiltProduct.url(named: "archive").path
        #expect(try ChildProcess.run(archive, ["onboarding", "dismiss", "--database", database]).status == 0)
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { _ = try? tmux("kill-server") }
        try tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", "'\(tui)' --database '\(database)'")
        try waitForScreen("the catalog") { $0.contains("66 dishes, 0 ♥") }
        #expect(try ChildProcess.run(archive, ["add", "1", "--database", database]).status == 0)
        let updated = try waitForScreen("the heart added by another process", timeout: .seconds(5)) { $0.contains("66 dishes, 1 ♥") }
        #expect(updated.contains("♥ 親子丼"))
        try tmux("send-keys", "-t", session, "C-c")
        let deadline = ContinuousClock.now + .seconds(10)
        while try sessionIsRunning(), ContinuousClock.now < deadline {}
        #expect(try !sessionIsRunning(), "archive-tui did not quit on q")
    }

    /// Offline-first, the favorites filter, the remembered view and the action
    /// log, in one session of the real TUI against a catalog that cannot be reached.
    @Test func offlineBannerFavoritesFilterRememberedViewAndActionLog() throws {
        let database = directory.path("offline.sqlite3")
        let log = directory.path("actions.jsonl")
        let archive = BuiltProduct.url(named: "archive").path
        for arguments in [["onboarding", "dismiss"], ["add", "4"], ["add", "17"], ["add", "33"]] {
            #expect(try ChildProcess.run(archive, arguments + ["--database", database]).status == 0)
        }
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { _ = try? tmux("kill-server") }
        try tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30",
                 "'\(tui)' --database '\(database)' --api-url http://127.0.0.1:1 --log-actions '\(log)'")
        let offline = try waitForScreen("the offline banner") { $0.contains("offline — showing your favorites: cannot reach") }
        #expect(offline.contains("♥ チーズハンバーグ") && offline.contains("♥ ざる蕎麦"))

        // The Favorites view, filtered by one kanji.
        try tmux("send-keys", "-t", session, "C-t")
        try waitForScreen("the favorites") { $0.contains("3 favorites, newest first") }
        try tmux("send-keys", "-t", session, "/")
        try tmux("send-keys", "-t", session, "-l", "蕎")
        let filtered = try waitForScreen("the filtered favorites") { $0.contains("/蕎▏ — 1 matching") }
        #expect(filtered.contains("ざる蕎麦") && !filtered.contains("チーズハンバーグ"))
        try tmux("send-keys", "-t", session, "Escape")
        try waitForScreen("the filter cleared") { $0.contains("3 favorites, newest first") }
        try tmux("send-keys", "-t", session, "q")
        let deadline = ContinuousClock.now + .seconds(10)
        while try sessionIsRunning(), ContinuousClock.now < deadline {}
        #expect(try !sessionIsRunning(), "archive-tui did not quit on q")

        // The next launch opens the Favorites view, where the user left.
        try tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", "'\(tui)' --database '\(database)'")
        try waitForScreen("the remembered view") { $0.contains("3 favorites, newest first") }
        try tmux("send-keys", "-t", session, "C-c")
        let end = ContinuousClock.now + .seconds(10)
        while try sessionIsRunning(), ContinuousClock.now < end {}

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        let actions = lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["action"] as? String
        }
        #expect(actions.count == lines.count, "every line is JSON")
        #expect(actions.contains("archive.catalogFailed") && actions.contains("favorites.search") && actions.contains("settings.rememberView"))
    }
}
