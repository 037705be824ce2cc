import ArchiveFront

/// An in-memory grid of cells: what the screen should show. Rendering writes
/// into it; tests read it; the terminal driver only diffs and draws it.
///
/// A wide grapheme takes two cells (the second a continuation); one that would
/// straddle the right edge of the area being written is replaced by a space,
/// never cut in half.
struct ScreenBuffer: Equatable, Sendable {
    let width: Int
    let height: Int
    private(set) var cells: [Cell]

    /// A blank buffer of `width` × `height` cells.
    init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// The cell at column `x`, row `y`.
    subscript(x: Int, y: Int) -> Cell {
        cells[y * width + x]
    }

    /// Writes `text` at (`x`, `y`) in `style`, stopping before column `limit`
    /// (the right edge by default). Returns the column after the last cell written.
    ///
    /// Control characters (escape sequences, carriage returns, bidi overrides)
    /// are written as visible escapes (``TerminalText/visible(_:)``): text from a
    /// server or a file never reaches the terminal as commands.
    @discardableResult
    mutating func write(_ text: some StringProtocol, x: Int, y: Int, style: Style = .plain, limit: Int? = nil) -> Int {
        guard y >= 0, y < height else { return x }
        let text = TerminalText.visible(text)
        let end = min(limit ?? width, width)
        var column = x
        for character in text {
            let columns = DisplayWidth.of(character)
            if columns == 0 { continue }
            guard column + columns <= end else {
                // A wide grapheme that does not fit: pad instead of halving it.
                if column < end { set(Cell(text: " ", style: style), x: column, y: y) }
                return min(column + 1, end)
            }
            if column >= 0 {
                set(Cell(text: String(character), style: style), x: column, y: y)
                if columns == 2 { set(Cell(text: "", style: style), x: column + 1, y: y) }
            }
            column += columns
        }
        return column
    }

    /// Fills a row segment with spaces in `style`.
    mutating func fill(y: Int, from x: Int = 0, to end: Int? = nil, style: Style) {
        guard y >= 0, y < height else { return }
        for column in max(0, x)..<min(end ?? width, width) {
            set(Cell(text: " ", style: style), x: column, y: y)
        }
    }

    /// Adds `style`'s attributes to the cells of a row segment.
    mutating func restyle(y: Int, from x: Int, to end: Int, with style: Style) {
        guard y >= 0, y < height else { return }
        for column in max(0, x)..<min(end, width) {
            cells[y * width + column].style = cells[y * width + column].style.merged(with: style)
        }
    }

    /// Sets one cell, blanking the halves of any wide grapheme it overwrites.
    private mutating func set(_ cell: Cell, x: Int, y: Int) {
        guard x >= 0, x < width else { return }
        let index = y * width + x
        if cells[index].isContinuation, x > 0 {
            cells[index - 1] = Cell(text: " ", style: cells[index - 1].style)
        }
        if !cells[index].isContinuation, x + 1 < width, cells[index + 1].isContinuation, !cell.isContinuation {
            cells[index + 1] = Cell(text: " ", style: cells[index + 1].style)
        }
        cells[index] = cell
    }

    // MARK: - Reading, for tests and snapshots

    /// Row `y` as text (continuation cells omitted, so wide graphemes read naturally).
    func line(_ y: Int) -> String {
        (0..<width).reduce(into: "") { text, x in text += self[x, y].text }
    }

    /// Every row as text, trailing spaces trimmed.
    var lines: [String] {
        (0..<height).map { y in
            var text = line(y)
            while text.last == " " { text.removeLast() }
            return text
        }
    }
}
