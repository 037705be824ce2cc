/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
struct ProgressBar {
    private let enabled = Terminal.stderrIsTTY
    private var lastDrawn = -1
    private var drew = false

    /// Draws `fraction` (0...1) with a label, redrawing at most once per percent.
    mutating func update(fraction: Double, label: String) {
        guard enabled else { return }
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        drew = true
        let width = 30
        let filled = width * percent / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        Terminal.status("\r\u{1B}[2K\(bar) \(percent)% \(label)")
    }

    /// Ends the bar's line.
    mutating func finish() {
        guard enabled, drew else { return }
        Terminal.status("\r\u{1B}[2K")
        drew = false
        lastDrawn = -1
    }
}
