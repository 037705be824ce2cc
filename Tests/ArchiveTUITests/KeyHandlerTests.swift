import ArchiveCore
import ArchiveStorage
@testable import ArchiveTUI
import Testing

@Suite(.timeLimit(.minutes(5)))
struct KeyHandlerTests {
    let layout = Layout(width: 80, height: 24)

    func press(_ keys: Key..., view: inout ViewState, state: AppState) -> [TUICommand] {
        keys.flatMap { KeyHandler.handle($0, view: &view, state: state, layout: layout) }
    }

    @Test func typingEditsTheQueryAndSearchesAfterAPauseOrOnEnter() {
        var view = Fixtures.view(focus: .search, query: "")
        let state = AppState()
        let typed = press(.character("チ"), .character("ー"), view: &view, state: state)
        #expect(typed == [.scheduleSearch(generation: 1), .scheduleSearch(generation: 2)])
        #expect(view.query == "チー")
        // Only the last pause searches.
        #expect(KeyHandler.searchPauseEnded(generation: 1, view: view, state: state) == [])
        #expect(KeyHandler.searchPauseEnded(generation: 2, view: view, state: state) == [.dispatch(.archive(.requestWithInputText("チー")))])
        #expect(press(.backspace, view: &view, state: state) == [.scheduleSearch(generation: 3)])
        #expect(press(.enter, view: &view, state: state) == [.dispatch(.archive(.requestWithInputText("チ")))])
        #expect(view.focus == .results)
    }

    @Test func escapeClearsEveryCondition() {
        var view = Fixtures.view(focus: .results)
        #expect(press(.escape, view: &view, state: Fixtures.cheeseWestern) == [.dispatch(.archive(.requestWithNoConditions))])
        #expect(view.query == "")
        #expect(view.focus == .search)
    }

    @Test func chipsMoveWithArrowsAndTabAndSelectingAgainClears() {
        var view = Fixtures.view(focus: .categories)
        view.chipCursor = 0
        _ = press(.right, .right, .left, .tab, view: &view, state: AppState())
        #expect(view.chipCursor == 2)
        #expect(press(.enter, view: &view, state: AppState()) == [.dispatch(.archive(.requestWithSelectedCategory("中華")))])
        view.chipCursor = 1
        #expect(press(.character(" "), view: &view, state: Fixtures.cheeseWestern) == [.dispatch(.archive(.requestWithSelectedCategory("")))])
    }

    @Test func spaceOrEnterTogglesTheHeartThroughActionsOnly() throws {
        let state = Fixtures.cheeseWestern
        var view = Fixtures.view(focus: .results, cursor: 0)
        #expect(press(.character(" "), view: &view, state: state) == [.dispatch(.archive(.deleteArchiveObject(id: 17)))])
        _ = press(.down, view: &view, state: state)
        let row = state.archiveState.archiveCellViewObjects[1]
        #expect(!row.isStored, "the row under the cursor is not stored, so the toggle is an add")
        let beforeToggle = view
        #expect(press(.enter, view: &view, state: state) == [.dispatch(.archive(.addArchiveObject(row)))])
        // The view did not flip anything: the heart comes from the state, once the reducer has the action.
        #expect(view == beforeToggle)
        // While a store is in flight, the row ignores toggles.
        let pending = Fixtures.reduce(.archive(.addArchiveObject(row)), from: state)
        #expect(press(.character(" "), view: &view, state: pending) == [])
    }

    @Test func cursorMovementScrollsAndStopsAtTheEnds() {
        let state = Fixtures.everything
        var view = Fixtures.view(focus: .results, query: "")
        _ = press(.end, view: &view, state: state)
        #expect(view.resultCursor == 65)
        #expect(view.resultScroll == 66 - layout.visibleResults)
        _ = press(.down, view: &view, state: state)
        #expect(view.resultCursor == 65)
        _ = press(.home, view: &view, state: state)
        #expect(view.resultCursor == 0 && view.resultScroll == 0)
        _ = press(.up, view: &view, state: state)
        #expect(view.focus == .categories)
    }

    @Test func retryQuitHelpAndViewSwitching() {
        let failed = Fixtures.reduce(.archive(.failure(message: "down")), from: Fixtures.cheeseWestern)
        var view = Fixtures.view(focus: .results)
        #expect(press(.character("r"), view: &view, state: failed) == [.dispatch(.archive(.retry))])
        #expect(press(.character("?"), view: &view, state: failed) == [])
        #expect(view.showHelp)
        #expect(press(.character("q"), view: &view, state: failed) == [])  // closes the help first
        #expect(press(.character("q"), view: &view, state: failed) == [.quit])
        #expect(press(.control("c"), view: &view, state: failed) == [.quit])
        var typing = Fixtures.view(focus: .search, query: "")
        #expect(press(.character("q"), view: &typing, state: failed) == [.scheduleSearch(generation: 1)])
        #expect(press(.control("c"), view: &typing, state: failed) == [.quit])

        #expect(press(.control("t"), view: &view, state: failed) == [.dispatch(.favorites(.requestPage(after: nil, limit: KeyHandler.favoritesPageSize))), .dispatch(.settings(.rememberView(.favorites)))])
        #expect(view.mode == .favorites)
        #expect(press(.escape, view: &view, state: failed) == [.dispatch(.archive(.refreshStoredStatus)), .dispatch(.settings(.rememberView(.archive)))])
        #expect(view.mode == .archive)
    }

    /// ^S (or F5) syncs with the kept server, in either view, unless a sync runs; without
    /// a server it leaves a notice, which the next key clears.
    @Test func controlSSyncsWithTheKeptServer() {
        var view = Fixtures.view(focus: .search, query: "")
        #expect(press(.control("s"), view: &view, state: AppState()) == [])
        #expect(view.notice?.contains("archive settings set syncServer") == true)
        _ = press(.down, view: &view, state: AppState())
        #expect(view.notice == nil)

        var state = AppState()
        state.settingsState.entries = [SettingEntry(setting: .syncServer, storedValue: .string("http://127.0.0.1:8080"))]
        let sync: [TUICommand] = [.dispatch(.sync(.start(.server(url: "http://127.0.0.1:8080"))))]
        #expect(press(.control("s"), view: &view, state: state) == sync)
        view.mode = .favorites
        #expect(press(.function(5), view: &view, state: state) == sync)
        #expect(view.query.isEmpty, "^S is not typed into a field")
        state.syncState.isSyncing = true
        #expect(press(.control("s"), view: &view, state: state) == [], "one sync at a time")
    }

    @Test func anyKeyDismissesTheOnboardingOverlay() {
        let state = Fixtures.reduce(.onboarding(.show))
        var view = Fixtures.view()
        #expect(press(.character("x"), view: &view, state: state) == [.dispatch(.onboarding(.close))])
        #expect(press(.control("c"), view: &view, state: state) == [.quit])
    }

    @Test func favoritesLoadTheNextPageNearTheEndAndRemoveThroughActions() {
        let state = Fixtures.favorites(200, total: 1_000_000)
        var view = Fixtures.view()
        view.mode = .favorites
        #expect(press(.down, view: &view, state: state) == [])
        view.favoritesCursor = 160
        #expect(press(.down, view: &view, state: state) == [.dispatch(.favorites(.requestNextPage(limit: KeyHandler.favoritesPageSize)))])
        #expect(press(.character("d"), view: &view, state: state) == [.dispatch(.archive(.deleteArchiveObject(id: 162)))])
    }

    @Test func slashFiltersTheFavoritesAtEachKeyAndEscapeClearsThenLeaves() {
        let state = Fixtures.favorites(30)
        var view = Fixtures.view()
        view.mode = .favorites
        view.favoritesCursor = 5
        func search(_ keyword: String) -> [TUICommand] {
            [.dispatch(.favorites(.search(FavoritesQuery(keyword: keyword), after: nil, limit: KeyHandler.favoritesPageSize)))]
        }
        #expect(press(.character("/"), view: &view, state: state) == [])
        #expect(view.isEditingFavoritesFilter)
        #expect(press(.character("寿"), view: &view, state: state) == search("寿"))
        #expect(view.favoritesCursor == 0)
        #expect(press(.character("司"), view: &view, state: state) == search("寿司"))
        // "q" and "d" are text while editing, not quit or remove.
        #expect(press(.character("q"), view: &view, state: state) == search("寿司q"))
        #expect(press(.backspace, view: &view, state: state) == search("寿司"))
        #expect(press(.enter, view: &view, state: state) == [])
        #expect(!view.isEditingFavoritesFilter && view.favoritesFilter == "寿司")
        // Outside editing, Esc first clears the filter, then goes back to the archive.
        #expect(press(.escape, view: &view, state: state) == search(""))
        #expect(view.mode == .favorites && view.favoritesFilter.isEmpty)
        #expect(press(.escape, view: &view, state: state) == [.dispatch(.archive(.refreshStoredStatus)), .dispatch(.settings(.rememberView(.archive)))])
        #expect(view.mode == .archive)
    }

    @Test func escapeWhileEditingTheFilterClearsItAndAMoveLeavesTheField() {
        let state = Fixtures.favorites(30)
        var view = Fixtures.view()
        view.mode = .favorites
        _ = press(.character("/"), .character("x"), view: &view, state: state)
        #expect(press(.escape, view: &view, state: state) == [.dispatch(.favorites(.search(FavoritesQuery(), after: nil, limit: KeyHandler.favoritesPageSize)))])
        #expect(!view.isEditingFavoritesFilter && view.mode == .favorites)
        _ = press(.character("/"), .character("x"), view: &view, state: state)
        _ = press(.down, view: &view, state: state)
        #expect(!view.isEditingFavoritesFilter && view.favoritesCursor == 1 && view.favoritesFilter == "x")
    }
}
