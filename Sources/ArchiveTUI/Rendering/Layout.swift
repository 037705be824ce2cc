/// Where things go on a screen of a given size. Shared by rendering and key
/// handling so that scrolling keeps the cursor on screen.
struct Layout: Equatable, Sendable {
    let width: Int
    let height: Int

    /// Rows of the Archive view: title, search field, chips, status; then the list; then the help bar.
    static let titleRow = 0
    static let searchRow = 1
    static let chipsRow = 2
    static let statusRow = 3
    static let listTop = 4
    /// Screen lines per search result.
    static let linesPerResult = 2

    /// The last row, for the help bar.
    var helpRow: Int { height - 1 }

    /// How many search results fit.
    var visibleResults: Int { max(1, (height - Self.listTop - 1) / Self.linesPerResult) }

    /// How many favorites fit (one line each, under the title and status rows).
    var visibleFavorites: Int { max(1, height - 3) }

    /// The scroll offset that keeps `cursor` visible in a list showing `visible` rows.
    static func scroll(_ scroll: Int, keeping cursor: Int, visible: Int, count: Int) -> Int {
        var scroll = min(scroll, max(0, count - visible))
        if cursor < scroll { scroll = cursor }
        if cursor >= scroll + visible { scroll = cursor - visible + 1 }
        return max(0, scroll)
    }
}
