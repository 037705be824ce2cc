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

    /// Runs a tmux command on this test's server; a command tmux refuses is an error
    /// (a capture from a server that is gone must not read as an empty screen).
    @discardableResult
    func tmux(_ arguments: String...) throws -> String {
        let result = try ChildProcess.run(tmux, ["-L", socket] + arguments)
        guard result.status == 0 else {
            throw TUITestError("tmux \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    func screen() throws -> String {
        try tmux("capture-pane", "-p", "-t", session)
    }

    /// The pane's output, streamed by `tmux pipe-pane` into a FIFO that the test
    /// reads: the screen changes only when the program writes, so a wait blocks in
    /// `poll(2)` on that FIFO until something arrives (no sleeping, no busy polling).
    final class PaneOutput {
        let descriptor: Int32
        /// The FIFO's path.
        let path: String

        init(fifo: String) throws {
            path = fifo
            guard mkfifo(fifo, 0o600) == 0 else { throw TUITestError("cannot make the FIFO \(fifo)") }
            // Read side first, without waiting for a writer: then `cat > fifo` never blocks.
            descriptor = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { throw TUITestError("cannot open the FIFO \(fifo)") }
        }

        deinit { close(descriptor) }

        enum Event { case output, closed, timedOut }

        /// Waits until output arrives (and drains it), the pane closes, or `deadline` passes.
        func wait(until deadline: ContinuousClock.Instant) -> Event {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .timedOut }
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, milliseconds) > 0 else { return .timedOut }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = read(self.descriptor, &buffer, buffer.count)
            return count > 0 ? .output : .closed  // 0: the writer (the pane) is gone
        }
    }

    /// Starts `command` in a new tmux session, its output streamed to a new ``PaneOutput``.
    ///
    /// The server is told to outlive its sessions (`exit-empty off`; the test's
    /// `kill-server` ends it): by default it exits when its last program ends, and a
    /// test that starts the next program at once could reach that server while it
    /// was exiting ("server exited unexpectedly"), leaving no program and, before the
    /// status check, an empty screen. A session whose program has ended is removed
    /// first, in case the server has not yet done so.
    func start(_ command: String) throws -> PaneOutput {
        let output = try PaneOutput(fifo: directory.path("pane-\(UUID().uuidString.prefix(8))"))
        try tmux("start-server", ";", "set-option", "-s", "exit-empty", "off")
        _ = try? tmux("kill-session", "-t", session)
        try tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
        try tmux("pipe-pane", "-t", session, "cat >> '\(output.path)'")
        return output
    }

    /// Checks the screen each time the pane writes, until `condition` holds; fails
    /// after `timeout` with the last screen.
    @discardableResult
    func waitForScreen(_ what: String, on pane: PaneOutput, timeout: Duration = .seconds(15), _ condition: (String) -> Bool) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let last = try screen()
            if condition(last) { return last }
            switch pane.wait(until: deadline) {
            case .output: continue
            case .closed: throw TUITestError("the program ended while waiting for \(what); the screen was:\n\(last)")
            case .timedOut: throw TUITestError("timed out waiting for \(what); the screen was:\n\(last)")
            }
        }
    }

    /// Waits until the program has ended (the pane closed), at most `timeout`.
    func waitForExit(of pane: PaneOutput, timeout: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch pane.wait(until: deadline) {
            case .output: continue
            case .closed: return true
            case .timedOut: return false
            }
        }
    }

    @Test func dismissOnboardingSearchHeartARowQuitAndTheFavoriteIsStored() throws {
        let database = directory.path("tui.sqlite3")
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { _ = try? tmux("kill-server") }
        var pane = try start("env -u ARCHIVE_API_URL TERM=xterm-256color '\(tui)' --database '\(database)'")

        try waitForScreen("the onboarding overlay", on: pane) { $0.contains("Welcome to FavoriteArchive") }
        try tmux("send-keys", "-t", session, "Enter")
        try waitForScreen("the catalog behind the overlay", on: pane) { !$0.contains("Welcome") && $0.contains("66 dishes") }

        try tmux("send-keys", "-t", session, "-l", "チーズ")
        try tmux("send-keys", "-t", session, "Enter")
        try waitForScreen("the search results", on: pane) { $0.contains("8 dishes") && $0.contains("チーズハンバーグ") }

        try tmux("send-keys", "-t", session, "Down")
        try tmux("send-keys", "-t", session, "Space")
        let hearted = try waitForScreen("the heart on チーズハンバーグ", on: pane) { $0.contains("♥ チーズハンバーグ") }
        #expect(hearted.contains("8 dishes, 1 ♥"))

        try tmux("send-keys", "-t", session, "q")
        #expect(waitForExit(of: pane), "archive-tui did not quit on q")

        let favorites = try ChildProcess.run(
            BuiltProduct.url(named: "archive").path, ["favorites", "--json", "--database", database])
        #expect(favorites.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(favorites.stdout.utf8)) as? [String: Any]
        let ids = (json?["favorites"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
        #expect(ids == [17])

        // The onboarding flag was persisted: a second launch shows no overlay, and
        // starts where the user left off (the last search, remembered).
        pane = try start("env -u ARCHIVE_API_URL '\(tui)' --database '\(database)'")
        let second = try waitForScreen("the second launch", on: pane) { $0.contains("8 dishes, 1 ♥ · “チーズ”") }
        #expect(!second.contains("Welcome"))
        #expect(second.contains("Search › チーズ"))
        try tmux("send-keys", "-t", session, "C-c")
        #expect(waitForExit(of: pane), "archive-tui did not quit on ctrl-c")
    }

    @Test func anotherProcessAddingAFavoriteShowsUpWithoutARestart() throws {
        let database = directory.path("shared.sqlite3")
        let archive = BuiltProduct.url(named: "archive").path
        #expect(try ChildProcess.run(archive, ["onboarding", "dismiss", "--database", database]).status == 0)
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { _ = try? tmux("kill-server") }
        let pane = try start("'\(tui)' --database '\(database)'")
        try waitForScreen("the catalog", on: pane) { $0.contains("66 dishes, 0 ♥") }
        #expect(try ChildProcess.run(archive, ["add", "1", "--database", database]).status == 0)
        let updated = try waitForScreen("the heart added by another process", on: pane, timeout: .seconds(5)) { $0.contains("66 dishes, 1 ♥") }
        #expect(updated.contains("♥ 親子丼"))
        try tmux("send-keys", "-t", session, "C-c")
        #expect(waitForExit(of: pane), "archive-tui did not quit on q")
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
        var pane = try start("'\(tui)' --database '\(database)' --api-url http://127.0.0.1:1 --log-actions '\(log)'")
        let offline = try waitForScreen("the offline banner", on: pane) { $0.contains("offline — showing your favorites: cannot reach") }
        #expect(offline.contains("♥ チーズハンバーグ") && offline.contains("♥ ざる蕎麦"))

        // The Favorites view, filtered by one kanji.
        try tmux("send-keys", "-t", session, "C-t")
        try waitForScreen("the favorites", on: pane) { $0.contains("3 favorites, newest first") }
        try tmux("send-keys", "-t", session, "/")
        try tmux("send-keys", "-t", session, "-l", "蕎")
        let filtered = try waitForScreen("the filtered favorites", on: pane) { $0.contains("/蕎▏ — 1 matching") }
        #expect(filtered.contains("ざる蕎麦") && !filtered.contains("チーズハンバーグ"))
        try tmux("send-keys", "-t", session, "Escape")
        try waitForScreen("the filter cleared", on: pane) { $0.contains("3 favorites, newest first") }
        try tmux("send-keys", "-t", session, "q")
        #expect(waitForExit(of: pane), "archive-tui did not quit on q")

        // The next launch opens the Favorites view, where the user left.
        pane = try start("'\(tui)' --database '\(database)'")
        try waitForScreen("the remembered view", on: pane) { $0.contains("3 favorites, newest first") }
        try tmux("send-keys", "-t", session, "C-c")
        #expect(waitForExit(of: pane), "archive-tui did not quit")

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        let actions = lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["action"] as? String
        }
        #expect(actions.count == lines.count, "every line is JSON")
        #expect(actions.contains("archive.catalogFailed") && actions.contains("favorites.search") && actions.contains("settings.rememberView"))
    }
}
