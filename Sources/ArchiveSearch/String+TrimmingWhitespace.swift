extension String {
    /// The string without leading and trailing whitespace (Unicode's definition, so
    /// the ideographic space U+3000 of Japanese input is trimmed too).
    package func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
