/// Where the action log goes (``ActionLogMiddleware``): whole lines, from any thread.
public protocol ActionLogSink: Sendable {
    /// Appends one line (without its newline).
    func write(line: String)
}
