/// One terminal cell: a grapheme of width 1 or 2, or the continuation of the wide one before it.
struct Cell: Hashable, Sendable {
    /// The grapheme drawn here; empty for the second cell of a wide grapheme.
    var text: String
    /// How it is drawn.
    var style: Style

    /// A blank cell.
    static let blank = Cell(text: " ", style: .plain)

    /// Whether this cell continues the wide grapheme to its left.
    var isContinuation: Bool { text.isEmpty }
}
