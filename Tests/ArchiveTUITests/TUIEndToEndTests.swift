import Foundation
import ArchiveStorage
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the real `archive-tui` inside tmux, types like a person, reads the screen.
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct TUIEndToEndTests {
    let directory: TemporaryDirectory
    let session = "tui"
    let server: TmuxServer

    init() throws {
        directory = try TemporaryDirectory()
        server = TmuxServer(executable: try Prerequisite.path(of: "tmux", debianPackage: "tmux"), socket: directory.path("tmux.socket"))
    }

    /// This test's own tmux server, on a socket in the test's directory, started in the
    /// foreground (`tmux -D`) as a child of the test, so that the test reaps it: a daemonized
    /// server leaves the test's process tree, and where nothing reaps orphans it stays a
    /// zombie with its programs' zombies under it. ``stop()`` (also from `deinit`, pass or
    /// fail) asks it to exit, and kills it and everything under it if it does not.
    final class TmuxServer {
        let executable: String
        let socket: String
        private var process: ChildProcess?

        init(executable: String, socket: String) {
            self.executable = executable
            self.socket = socket
        }

        deinit { stop() }

        /// Runs a tmux command on this server (started first if need be) and returns how it ended.
        func run(_ arguments: [String]) throws -> ChildProcess.Result {
            try startIfNeeded()
            return try ChildProcess.run(executable, ["-S", socket] + arguments, timeout: Deadline.standard)
        }

        private func startIfNeeded() throws {
            if let process, !process.hasExited { return }
            unlink(socket)
            let directory = (socket as NSString).deletingLastPathComponent
            let events = try FileEvents(watching: directory)
            let server = try ChildProcess(executable, ["-S", socket, "-f", "/dev/null", "-D"])
            process = server
            // Ready once its socket exists (tmux binds and listens on it in one step) and it
            // answers there.
            guard events.wait(for: (socket as NSString).lastPathComponent) else {
                throw TUITestError("tmux -D made no socket within \(Deadline.standard): \(server.hasExited ? server.wait().stderr : "still running")")
            }
            let answered = try Deadline.poll {
                guard !server.hasExited else { return true }
                return !(try ChildProcess.run(executable, ["-S", socket, "list-sessions"]).stderr).contains("no server running")
            }
            guard answered, !server.hasExited else {
                throw TUITestError("tmux -D did not answer on its socket: \(server.hasExited ? server.wait().stderr : "still silent")")
            }
        }

        /// Ends every process the server started, then the server.
        ///
        /// The programs go first, the deepest first, while their parents live to reap
        /// them (the pane's shell its program, the server the shell): a program that
        /// outlived its parent would be reparented to PID 1, which reaps nothing in some
        /// containers. Then `kill-server`, and the server is reaped here (SIGKILL if it
        /// does not exit).
        func stop() {
            guard let process else { return }
            self.process = nil
            if !process.hasExited {
                for child in Self.descendants(of: process.pid).reversed() { Glibc.kill(child, SIGKILL) }
                // They are the server's descendants, not ours: nothing but /proc says they are gone.
                _ = Deadline.poll(within: .seconds(10)) { Self.descendants(of: process.pid).isEmpty }
                _ = try? ChildProcess.run(executable, ["-S", socket, "kill-server"], timeout: .seconds(10))
            }
            // The server is our child: its exit is waited for (SIGKILL after 10 s).
            _ = process.wait(orKillAfter: .seconds(10))
            unlink(socket)
        }

        /// The processes under `pid`, children before their parent's other descendants.
        static func descendants(of pid: pid_t) -> [pid_t] {
            var parents: [pid_t: pid_t] = [:]
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let child = pid_t(entry),
                      let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 1, let parent = pid_t(fields[1]) { parents[child] = parent }
            }
            var found: [pid_t] = []
            var frontier = [pid]
            while let next = frontier.popLast() {
                let children = parents.filter { $0.value == next }.map(\.key)
                found += children
                frontier += children
            }
            return found
        }
    }

    struct TUITestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs a tmux command on this test's server; a command tmux refuses is an error
    /// (a capture from a server that is gone must not read as an empty screen).
    @discardableResult
    func tmux(_ arguments: String...) throws -> String {
        try tmux(arguments)
    }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let result = try server.run(arguments)
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
    /// The server outlives its sessions (`tmux -D` turns `exit-empty` off; the test's
    /// ``TmuxServer/stop()`` ends it): by default it exits when its last program ends, and
    /// a test that starts the next program at once could reach that server while it
    /// was exiting ("server exited unexpectedly"), leaving no program and, before the
    /// status check, an empty screen. A session whose program has ended is removed
    /// first, in case the server has not yet done so.
    func start(_ command: String) throws -> PaneOutput {
        let output = try PaneOutput(fifo: directory.path("pane-\(UUID().uuidString.prefix(8))"))
        _ = try? tmux("kill-session", "-t", session)
        try tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
        try tmux("pipe-pane", "-t", session, "cat >> '\(output.path)'")
        return output
    }

    /// Checks the screen each time the pane writes, until `condition` holds; fails
    /// after `timeout` with the last screen.
    @discardableResult
    func waitForScreen(_ what: String, on pane: PaneOutput, timeout: Duration = Deadline.standard, _ condition: (String) -> Bool) throws -> String {
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
    func waitForExit(of pane: PaneOutput, timeout: Duration = Deadline.standard) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch pane.wait(until: deadline) {
            case .output: continue
            case .closed: return true
            case .timedOut: return false
            }
        }
    }

    /// Dismisses the onboarding in the database at `path` (created if need be), through `archive`.
    func dismissOnboarding(in path: String) throws {
        let archive = BuiltProduct.url(named: "archive").path
        #expect(try ChildProcess.run(archive, ["onboarding", "dismiss", "--database", path]).status == 0)
    }

    /// Quits the program in `pane` with ctrl-c (a key in the raw terminal) and expects it to end.
    func quit(_ pane: PaneOutput, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try tmux("send-keys", "-t", session, "C-c")
        #expect(waitForExit(of: pane), "archive-tui did not quit on ctrl-c", sourceLocation: sourceLocation)
    }

    @Test func dismissOnboardingSearchHeartARowQuitAndTheFavoriteIsStored() throws {
        let database = directory.path("tui.sqlite3")
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { server.stop() }
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
        try quit(pane)
    }

    @Test func anotherProcessAddingAFavoriteShowsUpWithoutARestart() throws {
        let database = directory.path("shared.sqlite3")
        try dismissOnboarding(in: database)
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { server.stop() }
        let pane = try start("'\(tui)' --database '\(database)'")
        try waitForScreen("the catalog", on: pane) { $0.contains("66 dishes, 0 ♥") }
        #expect(try ChildProcess.run(BuiltProduct.url(named: "archive").path, ["add", "1", "--database", database]).status == 0)
        let updated = try waitForScreen("the heart added by another process", on: pane) { $0.contains("66 dishes, 1 ♥") }
        #expect(updated.contains("♥ 親子丼"))
        try tmux("send-keys", "-t", session, "C-c")
        #expect(waitForExit(of: pane), "archive-tui did not quit on q")
    }

    /// `archive sync` run from another terminal brings another device's hearts and
    /// removals into the open TUI, which shows them without a restart.
    @Test func changesReceivedBySyncShowUpInTheOpenTUI() throws {
        let database = directory.path("synced.sqlite3")
        let laptop = directory.path("laptop.sqlite3")
        let archive = BuiltProduct.url(named: "archive").path
        try dismissOnboarding(in: database)
        #expect(try ChildProcess.run(archive, ["add", "1", "--database", database]).status == 0)
        for arguments in [["add", "17"], ["add", "1"], ["remove", "1"]] {
            #expect(try ChildProcess.run(archive, arguments + ["--database", laptop]).status == 0)
        }
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { server.stop() }
        let pane = try start("'\(tui)' --database '\(database)'")
        try waitForScreen("the catalog", on: pane) { $0.contains("66 dishes, 1 ♥") && $0.contains("♥ 親子丼") }
        let sync = try ChildProcess.run(archive, ["sync", laptop, "--database", database])
        #expect(sync.status == 0, "\(sync.stderr)")
        // The laptop's heart of 17 arrives; its later removal of 1 wins over the heart here.
        // 17 is further down the list: the count says it is there, 親子丼's empty heart that 1 went.
        try waitForScreen("the changes received by sync", on: pane) { $0.contains("66 dishes, 1 ♥") && $0.contains("♡ 親子丼") }
        try tmux("send-keys", "-t", session, "C-c")
        #expect(waitForExit(of: pane), "archive-tui did not quit on ctrl-c")
    }

    /// ctrl-c while a sync waits on a service that drips its answer or says nothing quits at
    /// once, the sync cancelled, the database as it was (seen wait for the sync's timeout, here
    /// an hour, and for ever on the drip).
    @Test(arguments: [true, false])
    func quittingCancelsASyncInFlight(drips: Bool) throws {
        let service = try ScriptedSyncService { _, _ in drips ? .drip(interval: .seconds(1)) : .silent }
        let archive = BuiltProduct.url(named: "archive").path
        let database = directory.path("quit-\(drips).sqlite3")
        try dismissOnboarding(in: database)
        for arguments in [["add", "1"], ["settings", "set", "syncServer", service.url]] {
            #expect(try ChildProcess.run(archive, arguments + ["--database", database]).status == 0)
        }
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { server.stop() }
        let pane = try start("ARCHIVE_SYNC_TOKEN=fa_test '\(tui)' --database '\(database)' --timeout 3600 --sync-every 3600")
        try waitForScreen("the sync under way", on: pane) { $0.contains("syncing") }
        #expect(Deadline.poll(every: .milliseconds(20)) { !service.requests.isEmpty }, "the TUI sent no request")
        try quit(pane)
        let check = try ChildProcess.run(archive, ["check", "--database", database])
        #expect(check.status == 0, "\(check.stderr)")
        let favorites = try ChildProcess.run(archive, ["favorites", "--json", "--database", database])
        #expect(((try favorites.json() as? [String: Any])?["favorites"] as? [Any])?.count == 1, "\(favorites.stdout)")
    }

    /// A CA file that is a FIFO nobody writes, named by `--ca-file`, by `ARCHIVE_SYNC_CA_FILE`
    /// or by the `syncCAFile` setting kept with the server: the TUI reads it from each (the
    /// options `archive sync` takes), the sync fails at once, saying so in the title bar,
    /// and the TUI takes keys and quits (before: "⇅ syncing…" for ever, deaf to every key
    /// and to ctrl-c: the CA file's read waited for a writer).
    @Test(arguments: ["option", "environment", "setting"])
    func aCAFileThatIsAFIFOFailsTheSyncAtOnce(source: String) throws {
        let archive = BuiltProduct.url(named: "archive").path
        let database = directory.path("fifo-ca-\(source).sqlite3")
        try dismissOnboarding(in: database)
        let fifo = directory.path("ca-\(source).fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        var settings = [("syncServer", "https://localhost:1")]
        if source == "setting" { settings.append(("syncCAFile", fifo)) }
        for (name, value) in settings {
            #expect(try ChildProcess.run(archive, ["settings", "set", name, value, "--database", database]).status == 0)
        }
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { server.stop() }
        let command = switch source {
        case "option": "ARCHIVE_SYNC_TOKEN=fa_test '\(tui)' --ca-file '\(fifo)' --database '\(database)' --sync-every 3600"
        case "environment": "ARCHIVE_SYNC_TOKEN=fa_test ARCHIVE_SYNC_CA_FILE='\(fifo)' '\(tui)' --database '\(database)' --sync-every 3600"
        default: "ARCHIVE_SYNC_TOKEN=fa_test '\(tui)' --database '\(database)' --sync-every 3600"
        }
        let pane = try start(command)
        try waitForScreen("the sync refused the CA file", on: pane) { $0.contains("sync failed (^S: again): cannot read the certi") }
        try quit(pane)
    }

    /// `archive-tui` takes `archive sync`'s service options and says where the token and the
    /// CA file come from; a token in the arguments is refused, as `archive sync` refuses it
    /// (other local users read the process list).
    @Test func theTUITakesTheSyncOptionsAndRefusesATokenInTheArguments() throws {
        let tui = BuiltProduct.url(named: "archive-tui").path
        let help = try ChildProcess.run(tui, ["--help"])
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in ["--ca-file <pem>", "--allow-insecure-http", "ARCHIVE_SYNC_CA_FILE", "ARCHIVE_SYNC_TOKEN", "the CA file kept with the server"] {
            #expect(words.contains(text), "\(text): \(help.stdout)")
        }
        #expect(!words.contains("--token <"), "\(help.stdout)")
        let refused = try ChildProcess.run(tui, ["--token", "fa_test", "--database", directory.path("token.sqlite3")])
        #expect(refused.status == 64 && refused.stderr.contains("--token is refused") && refused.stderr.contains("ARCHIVE_SYNC_TOKEN"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("token.sqlite3")), "nothing was opened")
    }

    /// The TUI syncs with the kept server: at start (the background sync), and on ^S; the
    /// title bar says when it last synced and how many changes wait; a heart made in the
    /// TUI waits until the next sync, which sends it to the other device.
    @Test func theTUISyncsWithTheServerInTheBackgroundAndOnCtrlS() throws {
        let archive = BuiltProduct.url(named: "archive").path
        let serverDirectory = try TemporaryDirectory()
        let serverDatabase = serverDirectory.path("server.sqlite3")
        let service = BuiltProduct.url(named: "archive-server").path
        let added = try ChildProcess.run(service, ["users", "add", "alice", "--database", serverDatabase])
        try #require(added.status == 0, "\(added.stderr)")
        let token = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)  // the phone's
        // The TUI's device has a token of its own (each device does).
        let tuiDevice = try ChildProcess.run(service, ["devices", "add", "alice", "tui", "--database", serverDatabase])
        try #require(tuiDevice.status == 0, "\(tuiDevice.stderr)")
        let tuiToken = tuiDevice.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let serving = try ChildProcess(service, ["--database", serverDatabase, "--port", "0"], streamingStdout: true)
        defer {
            serving.signal(SIGTERM)
            serving.wait()
        }
        let url = try #require(serving.nextLine()?.trimmingCharacters(in: .whitespacesAndNewlines))
        // The phone hearts 1 and syncs; the TUI's database has never synced.
        let phone = directory.path("phone.sqlite3"), database = directory.path("tui-sync.sqlite3")
        for arguments in [["add", "1"], ["sync", "--server", url, "--token-stdin"]] {
            let result = try ChildProcess.run(archive, arguments + ["--database", phone], input: .pipe(Data((token + "\n").utf8)))
            #expect(result.status == 0, "\(result.stderr)")
        }
        try dismissOnboarding(in: database)
        #expect(try ChildProcess.run(archive, ["settings", "set", "syncServer", url, "--database", database]).status == 0)
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { server.stop() }
        // No server kept: ^S says how to keep one (another database).
        let bare = directory.path("bare.sqlite3")
        try dismissOnboarding(in: bare)
        var pane = try start("'\(tui)' --database '\(bare)'")
        try waitForScreen("the catalog", on: pane) { $0.contains("66 dishes, 0 ♥") }
        try tmux("send-keys", "-t", session, "C-s")
        try waitForScreen("the notice", on: pane) { $0.contains("no sync server") }
        try quit(pane)

        pane = try start("ARCHIVE_SYNC_TOKEN='\(tuiToken)' '\(tui)' --database '\(database)' --sync-every 3600")
        // The sync at start brings the phone's heart and says so.
        try waitForScreen("the background sync", on: pane) { $0.contains("66 dishes, 1 ♥") && $0.contains("♥ 親子丼") && $0.contains("· 0 waiting") }
        // A heart here waits for the next sync.
        try tmux("send-keys", "-t", session, "Down")
        try tmux("send-keys", "-t", session, "Down")
        try tmux("send-keys", "-t", session, "Space")
        try waitForScreen("the change waiting", on: pane) { $0.contains("66 dishes, 2 ♥") && $0.contains("· 1 waiting") }
        try tmux("send-keys", "-t", session, "C-s")
        try waitForScreen("the sync on ^S", on: pane) { $0.contains("· 0 waiting") }
        // Live: the phone hearts 60 and syncs; the server's event stream tells the TUI, which
        // syncs at once (its interval is an hour, and no key is pressed).
        for arguments in [["add", "60"], ["sync", "--server", url, "--token-stdin"]] {
            let result = try ChildProcess.run(archive, arguments + ["--database", phone], input: .pipe(Data((token + "\n").utf8)))
            #expect(result.status == 0, "\(result.stderr)")
        }
        try waitForScreen("the phone's heart, brought by the event stream", on: pane) { $0.contains("66 dishes, 3 ♥") }
        try quit(pane)
        // The phone gets it.
        let phoneSync = try ChildProcess.run(archive, ["sync", "--server", url, "--token-stdin", "--database", phone], input: .pipe(Data((token + "\n").utf8)))
        #expect(phoneSync.status == 0, "\(phoneSync.stderr)")
        let favorites = try ChildProcess.run(archive, ["favorites", "--json", "--database", phone])
        let json = try JSONSerialization.jsonObject(with: Data(favorites.stdout.utf8)) as? [String: Any]
        #expect((json?["favorites"] as? [[String: Any]])?.count == 3, "\(favorites.stdout)")
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
        defer { server.stop() }
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

    // MARK: - Input of any size, a log that blocks (issue 44, cases 2 and 3)

    /// A 120,000-character paste into the search field: the field keeps what a search can
    /// be remembered with, draws its end in one pass, and the TUI answers the next key
    /// (the field was trimmed one character at a time, each time measuring the rest: a
    /// 1,500-character paste took 26 s, this one pinned a core for minutes).
    @Test func aHugePasteLeavesTheTUIAnsweringKeys() throws {
        let database = directory.path("paste.sqlite3")
        try dismissOnboarding(in: database)
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { server.stop() }
        let pane = try start("env -u ARCHIVE_API_URL '\(tui)' --database '\(database)'")
        try waitForScreen("the catalog", on: pane) { $0.contains("66 dishes") }
        let paste = directory.path("paste.txt")
        try String(repeating: "x", count: 120_000).write(toFile: paste, atomically: false, encoding: .utf8)
        try tmux("load-buffer", paste)
        try tmux("paste-buffer", "-t", session)
        try waitForScreen("the pasted text in the search field", on: pane) { $0.contains("Search › xxxxxxxx") }
        try waitForScreen("the search for it", on: pane) { $0.contains("0 dishes") }
        // The next keys are answered: Escape clears the conditions.
        try tmux("send-keys", "-t", session, "Escape")
        try waitForScreen("the cleared search", on: pane) { $0.contains("66 dishes") && !$0.contains("xxxx") }
        try quit(pane)
        // What is remembered is bounded like `settings set`: the pasted keyword is not.
        let settings = try ChildProcess.run(BuiltProduct.url(named: "archive").path, ["settings", "get", "lastSearchKeyword", "--database", database])
        #expect(settings.stdout.utf8.count < 2_000, "\(settings.stdout.utf8.count) bytes remembered")
    }

    /// A keyword of any length remembered by another program (the store holds what it is
    /// given): the TUI starts without it and answers keys.
    @Test func aHugeRememberedKeywordIsNotUsed() throws {
        let database = directory.path("remembered.sqlite3")
        try dismissOnboarding(in: database)
        do {
            let opened = try ArchiveDatabase(path: database)
            try opened.keyValueStore.set(String(repeating: "a", count: 30_000), for: KeyValueStore.Key<String>("lastSearchKeyword", default: ""))
        }
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { server.stop() }
        let pane = try start("env -u ARCHIVE_API_URL '\(tui)' --database '\(database)'")
        let first = try waitForScreen("the first screen", on: pane) { $0.contains("66 dishes") }
        #expect(!first.contains("aaaa"))
        try tmux("send-keys", "-t", session, "-l", "チーズ")
        try waitForScreen("the typed keyword's results", on: pane) { $0.contains("8 dishes") }
        try quit(pane)
    }

    /// `--log-actions FIFO` whose reader opened it and never reads: once the pipe is full,
    /// the log's writes wait in memory (then the log stops, with one warning) instead of
    /// blocking the main actor; keys are still answered and ctrl-c still quits.
    @Test func anActionLogWhoseReaderStopsReadingNeverFreezesTheTUI() throws {
        let database = directory.path("fifo-log.sqlite3")
        try dismissOnboarding(in: database)
        let fifo = directory.path("log.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reader: holds the FIFO open for reading and reads nothing.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(reader >= 0)
        defer { close(reader) }
        let tui = BuiltProduct.url(named: "archive-tui").path
        defer { server.stop() }
        let pane = try start("env -u ARCHIVE_API_URL '\(tui)' --database '\(database)' --log-actions '\(fifo)'")
        try waitForScreen("the catalog", on: pane) { $0.contains("66 dishes") }
        // Each switch between the views logs a few lines: 600 of them fill a pipe's 64 KiB.
        for _ in 0..<6 {
            try tmux(["send-keys", "-t", session] + Array(repeating: "C-t", count: 100))
        }
        // An even number of switches: back in the catalog view. ctrl-c is a key here (the
        // terminal is raw): it quits only if the main actor still reads keys.
        try waitForScreen("the catalog view after the pipe filled", on: pane) { $0.contains("66 dishes") }
        try tmux("send-keys", "-t", session, "C-c")
        #expect(waitForExit(of: pane), "archive-tui did not quit on ctrl-c with its log's pipe full")
    }
}
