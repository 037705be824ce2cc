/// A key the user pressed, decoded from the terminal's bytes.
enum Key: Hashable, Sendable {
    /// A printable character (including Japanese text typed through an input method).
    case character(Character)
    /// Ctrl plus a letter, such as ctrl-c (`.control("c")`).
    case control(Character)
    case enter, escape, backspace, delete, tab, backTab
    case up, down, left, right, pageUp, pageDown, home, end
    /// A function key, F1 to F12.
    case function(Int)
    /// Bytes that are not a key this program knows.
    case unknown
}
