import ArchiveAPI
import ArchiveCore
import ArchiveStorage
@testable import ArchiveTUI
import Testing

@Suite(.timeLimit(.minutes(5)))
struct RenderingSnapshotTests {
    static let sizes = [(80, 24), (40, 12)]

    func render(_ state: AppState, _ view: ViewState, _ size: (Int, Int)) -> ScreenBuffer {
        ArchiveScreen.render(state: state, view: view, width: size.0, height: size.1)
    }

    @Test(arguments: sizes)
    func searchResultsWithHeartsAndHighlights(width: Int, height: Int) throws {
        let buffer = render(Fixtures.cheeseWestern, Fixtures.view(cursor: 1), (width, height))
        try Snapshot.assert(buffer, named: "results-\(width)x\(height)")
    }

    @Test(arguments: sizes)
    func theWholeCatalogScrolledToTheCursor(width: Int, height: Int) throws {
        var view = Fixtures.view(query: "", cursor: 9)
        view.resultScroll = 7
        try Snapshot.assert(render(Fixtures.everything, view, (width, height)), named: "catalog-\(width)x\(height)")
    }

    @Test(arguments: sizes)
    func loading(width: Int, height: Int) throws {
        let state = Fixtures.reduce(.archive(.requestWithInputText("餃子")), from: Fixtures.cheeseWestern)
        var view = Fixtures.view(focus: .search, query: "餃子")
        view.spinnerFrame = 3
        try Snapshot.assert(render(state, view, (width, height)), named: "loading-\(width)x\(height)")
    }

    @Test(arguments: sizes)
    func errorWithRetry(width: Int, height: Int) throws {
        let state = Fixtures.reduce(
            .archive(.requestWithInputText("チーズ")),
            .archive(.failure(message: "search failed: http://127.0.0.1:3000/archive_images answered HTTP 500")))
        try Snapshot.assert(render(state, Fixtures.view(), (width, height)), named: "error-\(width)x\(height)")
    }

    @Test(arguments: sizes)
    func emptyResults(width: Int, height: Int) throws {
        let state = Fixtures.reduce(.archive(.requestWithInputText("存在しない")), .archive(.success(entities: [], storedIDs: [])))
        try Snapshot.assert(render(state, Fixtures.view(focus: .search, query: "存在しない"), (width, height)), named: "empty-\(width)x\(height)")
    }

    @Test(arguments: sizes)
    func onboardingOverlay(width: Int, height: Int) throws {
        let state = Fixtures.reduce(.onboarding(.show), from: Fixtures.everything)
        try Snapshot.assert(render(state, Fixtures.view(query: ""), (width, height)), named: "onboarding-\(width)x\(height)")
    }

    @Test(arguments: sizes)
    func helpOverlay(width: Int, height: Int) throws {
        var view = Fixtures.view()
        view.showHelp = true
        try Snapshot.assert(render(Fixtures.cheeseWestern, view, (width, height)), named: "help-\(width)x\(height)")
    }

    @Test(arguments: sizes)
    func favoritesView(width: Int, height: Int) throws {
        var view = Fixtures.view()
        view.mode = .favorites
        view.favoritesCursor = 2
        try Snapshot.assert(render(Fixtures.favorites(30, total: 1_000_000), view, (width, height)), named: "favorites-\(width)x\(height)")
    }

    /// The filter being typed (a control character in it shown as a symbol), its
    /// matches with their count, and a filter that matches nothing.
    @Test func favoritesFiltered() throws {
        var view = Fixtures.view()
        view.mode = .favorites
        view.isEditingFavoritesFilter = true
        view.favoritesFilter = "寿司\u{1B}[2J"
        var state = Fixtures.favorites(3, total: nil)
        AppReducer.reduce(&state, .favorites(.search(FavoritesQuery(keyword: view.favoritesFilter), after: nil, limit: 200)))
        let page = StoredArchivePage(objects: state.favoritesState.favorites.prefix(2).map(\.object), nextCursor: nil)
        AppReducer.reduce(&state, .favorites(.pageLoaded(page, query: FavoritesQuery(keyword: view.favoritesFilter), appending: false, totalCount: 2)))
        try Snapshot.assert(render(state, view, (80, 12)), named: "favorites-filtered-80x12")

        view.isEditingFavoritesFilter = false
        AppReducer.reduce(&state, .favorites(.pageLoaded(StoredArchivePage(objects: [], nextCursor: nil), query: FavoritesQuery(keyword: view.favoritesFilter), appending: false, totalCount: 0)))
        try Snapshot.assert(render(state, view, (80, 12)), named: "favorites-filter-no-match-80x12")
    }

    @Test(arguments: sizes)
    func chipsFocusedWithASelectedCategory(width: Int, height: Int) throws {
        var view = Fixtures.view(focus: .categories)
        view.chipCursor = 4
        try Snapshot.assert(render(Fixtures.cheeseWestern, view, (width, height)), named: "chips-\(width)x\(height)")
    }
}
