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

    init(session: ArchiveSession) {
        self.session = session
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
        loadCategories()
        render()
        for await event in events {
            guard handle(event) else { break }
            render()
        }
        store.dispatch(.stopWatchingExternalChanges)
        // Where the user leaves off, for the next start: the last search's conditions
        // (the view was remembered as it was switched). Reads in flight are dropped first,
        // so that quitting never waits on a slow catalog.
        store.cancelEffect(id: ArchiveMiddleware.searchEffectID)
        store.cancelEffect(id: FavoritesMiddleware.pageEffectID)
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

    private func loadCategories() {
        let api = session.api
        let send = self.send
        Task { @MainActor [weak self] in
            let categories = (try? await api.categories()) ?? []
            self?.view.categories = categories
            send.yield(.stateChanged)
        }
    }

    /// Handles one event; `false` to quit.
    private func handle(_ event: Event) -> Bool {
        switch event {
        case .keys(let keys):
            let size = terminal.size
            let layout = Layout(width: size.width, height: size.height)
            for key in keys {
                for command in KeyHandler.handle(key, view: &view, state: store.state, layout: layout) {
                    guard perform(command) else { return false }
                }
            }
        case .resize:
            terminal.invalidate()
        case .stateChanged:
            clampCursors()
        case .tick:
            let busy = store.state.archiveState.isLoading || store.state.favoritesState.isLoading
            guard busy else { return true }
            view.spinnerFrame += 1
        case .searchPause(let generation):
            for command in KeyHandler.searchPauseEnded(generation: generation, view: view, state: store.state) {
                guard perform(command) else { return false }
            }
        }
        return true
    }

    private func perform(_ command: TUICommand) -> Bool {
        switch command {
        case .quit:
            return false
        case .dispatch(let action):
            store.dispatch(action)
        case .scheduleSearch(let generation):
            let send = self.send
            Task {
                try? await Task.sleep(for: Self.searchPause)
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
