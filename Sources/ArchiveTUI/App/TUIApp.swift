import ArchiveFront
import Foundation

/// The TUI's loop: events in (keys, resizes, new states, timers), actions to
/// the store, the rendered screen out. The state is the store's; this keeps
/// only the view's own state (focus, typed text, cursors).
@MainActor
final class TUIApp {
    enum Event: Sendable {
        case keys([Key])
        case resize
        case stateChanged
        case tick
        case searchPause(generation: Int)
        /// Time for a background sync.
        case syncDue
    }

    /// How long after the last keystroke a typed keyword is searched.
    static let searchPause = Duration.milliseconds(350)
    /// How often another process's changes are looked for.
    static let externalChangeInterval = Duration.milliseconds(400)

    private let session: ArchiveSession
    private let store: AppStore
    private let terminal = TerminalDriver()
    private var view = ViewState()
    private let events: AsyncStream<Event>
    private let send: AsyncStream<Event>.Continuation
    private var signalSources: [any DispatchSourceSignal] = []
    /// The pause after the last keystroke in the search field, until it searches.
    private var pendingSearchPause: Task<Void, Never>?

    /// How often to sync in the background when a server is kept (`nil`: only on ^S).
    private let syncInterval: Duration?
    /// A sync was asked for (the server said the feed moved) while one was under way: one
    /// more runs when it ends, so the news is never dropped.
    private var syncAgain = false
    /// The first wait before listening again to a server's event stream that failed; it
    /// doubles up to ``maximumListenRetry``.
    static let firstListenRetry = Duration.seconds(2)
    static let maximumListenRetry = Duration.seconds(60)

    init(session: ArchiveSession, syncInterval: Duration? = nil) {
        self.session = session
        self.syncInterval = syncInterval
        self.store = session.makeStore()
        (events, send) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    }

    /// Runs until the user quits. The terminal is restored however it ends.
    func run() async throws {
        try terminal.start()
        defer { terminal.stop() }
        // Start where the user left off: the last search's conditions, in the last view.
        store.dispatch(.settings(.load))
        await store.finishEffects()
        let last = store.state.settingsState.lastSearch ?? LastSearch()
        startEventSources()
        store.dispatch(.onboarding(.request))
        view.query = last.keyword
        store.dispatch(.archive(.requestWithConditions(inputText: last.keyword, selectedCategory: last.category)))
        if last.view == .favorites {
            for command in KeyHandler.toggleMode(&view) { _ = perform(command) }
        }
        store.dispatch(.watchExternalChanges(interval: Self.externalChangeInterval))
        store.dispatch(.sync(.refreshStatus))
        startBackgroundSync()
        startListening()
        loadCategories()
        render()
        // The screen is drawn again only when an event changed something: an idle TUI
        // (ticks with nothing loading) draws nothing.
        events: for await event in events {
            switch handle(event) {
            case .quit: break events
            case .redraw: render()
            case .unchanged: break
            }
        }
        store.dispatch(.stopWatchingExternalChanges)
        // Where the user leaves off, for the next start: the last search's conditions
        // (the view was remembered as it was switched). Reads in flight are dropped first,
        // so that quitting never waits on a slow catalog; so is a sync in flight (a silent or
        // dripping service would hold the quit until its timeout): each page it applied is
        // kept with its cursor, the page in flight is not applied, as a sync cut off would.
        store.cancelEffect(id: ArchiveMiddleware.searchEffectID)
        store.cancelEffect(id: FavoritesMiddleware.pageEffectID)
        store.cancelEffect(id: SyncMiddleware.effectID)
        store.dispatch(.settings(.rememberSearch))
        await store.finishEffects()
    }

    // MARK: - Events

    private func startEventSources() {
        let send = self.send
        InputReader.start { keys in send.yield(.keys(keys)) }
        let stateStream = store.states()
        Task { for await _ in stateStream { send.yield(.stateChanged) } }
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                send.yield(.tick)
            }
        }
        // Signals are handled off the main queue, so that they work even if the
        // main actor is stuck writing to a terminal nobody reads any more.
        let queue = DispatchQueue(label: "archive-tui signals")
        for number in [SIGWINCH, SIGTERM, SIGHUP, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                switch number {
                case SIGWINCH:
                    send.yield(.resize)
                case SIGHUP:
                    // The terminal is gone: there is nothing left to restore.
                    TerminalRestorer.forget()
                    exit(128 + SIGHUP)
                default:
                    TerminalRestorer.restore()
                    exit(128 + number)
                }
            }
            source.resume()
            signalSources.append(source)
        }
    }

    /// With a sync server kept and an interval: a sync now, then one every interval (each
    /// skipped while one is under way, or when the server setting is gone).
    private func startBackgroundSync() {
        guard let interval = syncInterval, KeyHandler.syncServer(in: store.state) != nil else { return }
        let send = self.send
        Task {
            while !Task.isCancelled {
                send.yield(.syncDue)
                guard (try? await Task.sleep(for: interval)) != nil else { return }
            }
        }
    }

    /// With a sync server kept: listens to its event stream, and syncs as soon as it says
    /// another device's push landed. A stream that cannot be opened (the server offline, an
    /// older server without events, a refused token) is tried again later, doubling the
    /// wait up to a minute; meanwhile the interval syncs and ^S go on as before.
    private func startListening() {
        guard let server = KeyHandler.syncServer(in: store.state) else { return }
        let send = self.send, session = self.session
        Task {
            var wait = Self.firstListenRetry
            while !Task.isCancelled {
                do {
                    try await session.listenForFeedMoves(server: server) { send.yield(.syncDue) }
                    wait = Self.firstListenRetry
                } catch {
                    guard (try? await Task.sleep(for: wait)) != nil else { return }
                    wait = min(wait * 2, Self.maximumListenRetry)
                }
            }
        }
    }

    private func loadCategories() {
        let api = session.api
        let send = self.send
        Task { @MainActor [weak self] in
            let categories = (try? await api.categories()) ?? []
            self?.view.categories = categories
            send.yield(.stateChanged)
        }
    }

    /// What handling an event asks of the loop.
    private enum Outcome {
        case quit
        case redraw
        case unchanged
    }

    /// Handles one event.
    private func handle(_ event: Event) -> Outcome {
        switch event {
        case .keys(let keys):
            let size = terminal.size
            let layout = Layout(width: size.width, height: size.height)
            for key in keys {
                for command in KeyHandler.handle(key, view: &view, state: store.state, layout: layout) {
                    guard perform(command) else { return .quit }
                }
            }
        case .resize:
            terminal.invalidate()
        case .stateChanged:
            clampCursors()
            if syncAgain, !store.state.syncState.isSyncing, let server = KeyHandler.syncServer(in: store.state) {
                syncAgain = false
                store.dispatch(.sync(.start(.server(url: server))))
            }
        case .tick:
            let busy = store.state.archiveState.isLoading || store.state.favoritesState.isLoading
            guard busy else { return .unchanged }
            view.spinnerFrame += 1
        case .syncDue:
            guard let server = KeyHandler.syncServer(in: store.state) else { return .unchanged }
            guard !store.state.syncState.isSyncing else {
                syncAgain = true
                return .unchanged
            }
            store.dispatch(.sync(.start(.server(url: server))))
        case .searchPause(let generation):
            let commands = KeyHandler.searchPauseEnded(generation: generation, view: view, state: store.state)
            guard !commands.isEmpty else { return .unchanged }
            for command in commands {
                guard perform(command) else { return .quit }
            }
        }
        return .redraw
    }

    private func perform(_ command: TUICommand) -> Bool {
        switch command {
        case .quit:
            return false
        case .dispatch(let action):
            store.dispatch(action)
        case .scheduleSearch(let generation):
            // One pause at a time: each key restarts it, so a paste of any length waits
            // for one pause, not one per character.
            let send = self.send
            pendingSearchPause?.cancel()
            pendingSearchPause = Task {
                guard (try? await Task.sleep(for: Self.searchPause)) != nil else { return }
                send.yield(.searchPause(generation: generation))
            }
        }
        return true
    }

    private func clampCursors() {
        let rows = store.state.archiveState.archiveCellViewObjects.count
        view.resultCursor = min(view.resultCursor, max(0, rows - 1))
        let favorites = store.state.favoritesState.favorites.count
        view.favoritesCursor = min(view.favoritesCursor, max(0, favorites - 1))
    }

    private func render() {
        let size = terminal.size
        terminal.draw(ArchiveScreen.render(state: store.state, view: view, width: size.width, height: size.height))
    }
}
