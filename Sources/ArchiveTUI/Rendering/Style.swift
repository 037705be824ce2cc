/// How a cell is drawn: a few attributes and a foreground color.
struct Style: Hashable, Sendable {
    /// The terminal's 8 basic colors, or the default.
    enum Color: UInt8, Hashable, Sendable {
        case `default` = 9, black = 0, red = 1, green = 2, yellow = 3, blue = 4, magenta = 5, cyan = 6, white = 7
    }

    var bold = false
    var dim = false
    var reverse = false
    var underline = false
    var foreground = Color.default
    var background = Color.default

    /// The terminal's default look.
    static let plain = Style()
    /// Bold text.
    static let bold = Style(bold: true)
    /// Faint text.
    static let dim = Style(dim: true)
    /// Reversed colors: bars, selections.
    static let reverse = Style(reverse: true)
    /// The keyword's occurrences.
    static let highlight = Style(bold: true, foreground: .black, background: .yellow)
    /// Hearts.
    static let heart = Style(bold: true, foreground: .red)
    /// Errors.
    static let error = Style(bold: true, foreground: .red)
    /// Focused input.
    static let focus = Style(underline: true)

    /// The SGR escape sequence that draws this style from a reset state.
    var sgr: String {
        var codes = ["0"]
        if bold { codes.append("1") }
        if dim { codes.append("2") }
        if underline { codes.append("4") }
        if reverse { codes.append("7") }
        if foreground != .default { codes.append("3\(foreground.rawValue)") }
        if background != .default { codes.append("4\(background.rawValue)") }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    /// This style with `other`'s attributes added.
    func merged(with other: Style) -> Style {
        var merged = self
        merged.bold = bold || other.bold
        merged.dim = dim || other.dim
        merged.reverse = reverse || other.reverse
        merged.underline = underline || other.underline
        if other.foreground != .default { merged.foreground = other.foreground }
        if other.background != .default { merged.background = other.background }
        return merged
    }
}
