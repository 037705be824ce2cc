extension String {
    /// The string with spaces before it up to `width` characters, for aligned ID columns.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    /// The string with spaces after it up to `width` characters, for aligned text columns.
    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
