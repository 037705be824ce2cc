/// What the front keeps besides the app's state: which view and field have
/// focus, the text being typed, cursors and scroll offsets. Hearts and results
/// are never copied here: they are read from the store's state at each render.
struct ViewState: Equatable, Sendable {
    /// The two views.
    enum Mode: Equatable, Sendable { case archive, favorites }
    /// Where keys go in the Archive view.
    enum Focus: Equatable, Sendable { case search, categories, results }

    var mode = Mode.archive
    var focus = Focus.search
    /// The keyword being typed (searched after Enter or a pause).
    var query = ""
    /// Bumped at each edit of `query`, so that only the last pause triggers a search.
    var editGeneration = 0
    /// The catalog's categories, as chips.
    var categories: [String] = []
    var chipCursor = 0
    var resultCursor = 0
    var resultScroll = 0
    var favoritesCursor = 0
    var favoritesScroll = 0
    /// The Favorites view's filter keyword, as typed (searched at each key).
    var favoritesFilter = ""
    /// Whether keys go to the Favorites filter (after `/`, until Enter, Esc or a move).
    var isEditingFavoritesFilter = false
    var showHelp = false
    var spinnerFrame = 0
    /// A one-line notice in the title bar until the next key (why ^S did not sync).
    var notice: String?
}
