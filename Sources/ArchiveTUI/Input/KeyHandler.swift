import ArchiveFront

/// Maps a key to view changes and actions: pure, so every binding is tested
/// without a terminal. Hearts change only by dispatching actions; the view
/// never flips them itself.
enum KeyHandler {
    /// Favorites loaded per page.
    static let favoritesPageSize = 200
    /// Load the next page when the cursor comes this close to the end of what is loaded.
    static let prefetchDistance = 40

    /// Handles `key` given the app's `state` and the screen `layout`.
    static func handle(_ key: Key, view: inout ViewState, state: AppState, layout: Layout) -> [TUICommand] {
        if key == .control("c") { return [.quit] }
        if state.onboardingState.showOnboarding {
            return [.dispatch(.onboarding(.close))]
        }
        if view.showHelp {
            view.showHelp = false
            return []
        }
        view.notice = nil
        if key == .control("t") || key == .function(2) {
            return toggleMode(&view)
        }
        if key == .control("s") || key == .function(5) {
            return syncNow(view: &view, state: state)
        }
        switch view.mode {
        case .archive:
            return handleArchive(key, view: &view, state: state, layout: layout)
        case .favorites:
            return handleFavorites(key, view: &view, state: state.favoritesState, layout: layout)
        }
    }

    /// ^S: a sync with the kept `syncServer`, unless one is under way; without a server,
    /// a notice saying how to name one.
    static func syncNow(view: inout ViewState, state: AppState) -> [TUICommand] {
        guard let server = syncServer(in: state) else {
            view.notice = "no sync server: archive settings set syncServer URL"
            return []
        }
        guard !state.syncState.isSyncing else { return [] }
        return [.dispatch(.sync(.start(.server(url: server))))]
    }

    /// The `syncServer` setting as last read, when it names one.
    static func syncServer(in state: AppState) -> String? {
        guard let entry = state.settingsState.entries.first(where: { $0.setting == .syncServer }),
              case .string(let url)? = entry.value, !url.isEmpty
        else { return nil }
        return url
    }

    /// The pause after typing ended: search if the query is still the one typed and differs from the searched one.
    static func searchPauseEnded(generation: Int, view: ViewState, state: AppState) -> [TUICommand] {
        guard generation == view.editGeneration, view.query != state.archiveState.inputText else { return [] }
        return [.dispatch(.archive(.requestWithInputText(view.query)))]
    }

    // MARK: - Archive view

    private static func handleArchive(_ key: Key, view: inout ViewState, state: AppState, layout: Layout) -> [TUICommand] {
        if key == .escape {
            view.query = ""
            view.editGeneration += 1
            view.focus = .search
            view.resultCursor = 0
            view.resultScroll = 0
            return [.dispatch(.archive(.requestWithNoConditions))]
        }
        switch view.focus {
        case .search:
            return handleSearchField(key, view: &view)
        case .categories:
            return handleChips(key, view: &view, state: state.archiveState)
        case .results:
            return handleResults(key, view: &view, state: state.archiveState, layout: layout)
        }
    }

    /// Appends a typed (or pasted) character to a text field unless the text would pass
    /// ``ArchiveSetting/maximumTextLength`` (what a search can be remembered with): a field
    /// holds what a user can mean, and a paste of any size costs a bounded amount of work.
    static func appendBounded(_ character: Character, to text: inout String) -> Bool {
        let limit = ArchiveSetting.maximumTextLength
        // A scalar takes at least one UTF-8 byte: the scalars are counted only when the
        // bytes (counted in constant time) could be over.
        if text.utf8.count + character.utf8.count > limit,
           text.unicodeScalars.count + character.unicodeScalars.count > limit {
            return false
        }
        text.append(character)
        return true
    }

    private static func handleSearchField(_ key: Key, view: inout ViewState) -> [TUICommand] {
        switch key {
        case .character(let character):
            guard appendBounded(character, to: &view.query) else { return [] }
            view.editGeneration += 1
            return [.scheduleSearch(generation: view.editGeneration)]
        case .backspace:
            guard !view.query.isEmpty else { return [] }
            view.query.removeLast()
            view.editGeneration += 1
            return [.scheduleSearch(generation: view.editGeneration)]
        case .control("u"):
            view.query = ""
            view.editGeneration += 1
            return [.scheduleSearch(generation: view.editGeneration)]
        case .enter:
            view.editGeneration += 1
            view.focus = .results
            view.resultCursor = 0
            view.resultScroll = 0
            return [.dispatch(.archive(.requestWithInputText(view.query)))]
        case .tab:
            view.focus = .categories
        case .backTab:
            view.focus = .results
        case .down:
            view.focus = .results
        default:
            break
        }
        return []
    }

    private static func handleChips(_ key: Key, view: inout ViewState, state: ArchiveState) -> [TUICommand] {
        let count = view.categories.count
        switch key {
        case .left:
            view.chipCursor = max(0, view.chipCursor - 1)
        case .right:
            view.chipCursor = min(max(0, count - 1), view.chipCursor + 1)
        case .tab:
            if view.chipCursor + 1 < count { view.chipCursor += 1 } else { view.focus = .results }
        case .backTab:
            if view.chipCursor > 0 { view.chipCursor -= 1 } else { view.focus = .search }
        case .up:
            view.focus = .search
        case .down:
            view.focus = .results
        case .enter, .character(" "):
            guard view.categories.indices.contains(view.chipCursor) else { return [] }
            let category = view.categories[view.chipCursor]
            view.resultCursor = 0
            view.resultScroll = 0
            let selected = state.selectedCategory == category ? "" : category
            return [.dispatch(.archive(.requestWithSelectedCategory(selected)))]
        default:
            return commonKey(key, view: &view, state: state)
        }
        return []
    }

    private static func handleResults(_ key: Key, view: inout ViewState, state: ArchiveState, layout: Layout) -> [TUICommand] {
        let rows = state.archiveCellViewObjects
        let visible = layout.visibleResults
        switch key {
        case .up:
            if view.resultCursor == 0 { view.focus = .categories } else { view.resultCursor -= 1 }
        case .down:
            view.resultCursor = min(max(0, rows.count - 1), view.resultCursor + 1)
        case .pageUp:
            view.resultCursor = max(0, view.resultCursor - visible)
        case .pageDown:
            view.resultCursor = min(max(0, rows.count - 1), view.resultCursor + visible)
        case .home:
            view.resultCursor = 0
        case .end:
            view.resultCursor = max(0, rows.count - 1)
        case .tab:
            view.focus = .search
        case .backTab:
            view.focus = .categories
        case .enter, .character(" "):
            guard rows.indices.contains(view.resultCursor) else { return [] }
            let row = rows[view.resultCursor]
            guard !state.pendingStorageIDs.contains(row.id) else { return [] }
            return [.dispatch(.archive(row.isStored ? .deleteArchiveObject(id: row.id) : .addArchiveObject(row)))]
        default:
            return commonKey(key, view: &view, state: state)
        }
        view.resultScroll = Layout.scroll(view.resultScroll, keeping: view.resultCursor, visible: visible, count: rows.count)
        return []
    }

    /// Keys shared by the chips and the results: quit, help, retry, and typing
    /// (which jumps to the search field).
    private static func commonKey(_ key: Key, view: inout ViewState, state: ArchiveState) -> [TUICommand] {
        switch key {
        case .character("q"):
            return [.quit]
        case .character("?"):
            view.showHelp = true
        case .character("r") where state.isError || state.source.isOffline:
            return [.dispatch(.archive(.retry))]
        case .character("/"):
            view.focus = .search
        case .character(let character) where character != " ":
            view.focus = .search
            return handleSearchField(key, view: &view)
        default:
            break
        }
        return []
    }

    // MARK: - Favorites view

    /// Switches between the two views, and has the switch remembered (`lastView`).
    static func toggleMode(_ view: inout ViewState) -> [TUICommand] {
        switch view.mode {
        case .archive:
            view.mode = .favorites
            view.favoritesCursor = 0
            view.favoritesScroll = 0
            return [
                .dispatch(.favorites(.requestPage(after: nil, limit: favoritesPageSize))),
                .dispatch(.settings(.rememberView(.favorites))),
            ]
        case .favorites:
            view.mode = .archive
            return [.dispatch(.archive(.refreshStoredStatus)), .dispatch(.settings(.rememberView(.archive)))]
        }
    }

    /// Searches the favorites for the filter as it now reads, from the newest.
    private static func searchFavorites(_ view: inout ViewState) -> [TUICommand] {
        view.favoritesCursor = 0
        view.favoritesScroll = 0
        return [.dispatch(.favorites(.search(FavoritesQuery(keyword: view.favoritesFilter), after: nil, limit: favoritesPageSize)))]
    }

    /// Keys while the filter is edited: typing searches at once (the index answers
    /// in milliseconds), Enter keeps the filter, Esc clears it, a move leaves it.
    private static func handleFavoritesFilter(_ key: Key, view: inout ViewState, state: FavoritesState, layout: Layout) -> [TUICommand]? {
        switch key {
        case .character(let character):
            guard appendBounded(character, to: &view.favoritesFilter) else { return [] }
            return searchFavorites(&view)
        case .backspace:
            guard !view.favoritesFilter.isEmpty else { return [] }
            view.favoritesFilter.removeLast()
            return searchFavorites(&view)
        case .control("u"):
            view.favoritesFilter = ""
            return searchFavorites(&view)
        case .enter:
            view.isEditingFavoritesFilter = false
            return []
        case .escape:
            view.isEditingFavoritesFilter = false
            view.favoritesFilter = ""
            return searchFavorites(&view)
        default:
            view.isEditingFavoritesFilter = false
            return nil  // a move: handled as in the list
        }
    }

    private static func handleFavorites(_ key: Key, view: inout ViewState, state: FavoritesState, layout: Layout) -> [TUICommand] {
        if view.isEditingFavoritesFilter, let commands = handleFavoritesFilter(key, view: &view, state: state, layout: layout) {
            return commands
        }
        let count = state.favorites.count
        let visible = layout.visibleFavorites
        var commands: [TUICommand] = []
        switch key {
        case .up: view.favoritesCursor = max(0, view.favoritesCursor - 1)
        case .down: view.favoritesCursor = min(max(0, count - 1), view.favoritesCursor + 1)
        case .pageUp: view.favoritesCursor = max(0, view.favoritesCursor - visible)
        case .pageDown: view.favoritesCursor = min(max(0, count - 1), view.favoritesCursor + visible)
        case .home: view.favoritesCursor = 0
        case .end: view.favoritesCursor = max(0, count - 1)
        case .character("/"):
            view.isEditingFavoritesFilter = true
            return []
        case .escape where !view.favoritesFilter.isEmpty || !state.query.isEmpty:
            view.favoritesFilter = ""
            return searchFavorites(&view)
        case .escape, .tab, .backTab:
            return toggleMode(&view)
        case .character("q"):
            return [.quit]
        case .character("?"):
            view.showHelp = true
        case .character("r"):
            return [.dispatch(.favorites(.refresh(minimumLimit: favoritesPageSize)))]
        case .character("d"), .character("x"), .delete, .enter, .character(" "):
            guard state.favorites.indices.contains(view.favoritesCursor) else { return [] }
            return [.dispatch(.archive(.deleteArchiveObject(id: state.favorites[view.favoritesCursor].id)))]
        default:
            return []
        }
        if state.hasMore, !state.isLoading, view.favoritesCursor + prefetchDistance >= count {
            commands.append(.dispatch(.favorites(.requestNextPage(limit: favoritesPageSize))))
        }
        view.favoritesScroll = Layout.scroll(view.favoritesScroll, keeping: view.favoritesCursor, visible: visible, count: count)
        return commands
    }
}
