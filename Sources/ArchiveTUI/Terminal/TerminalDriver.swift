import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real terminal: raw mode, the alternate screen, and drawing a
/// ``ScreenBuffer`` by writing only the cells that changed.
///
/// A small termios/ANSI driver rather than ncurses: the screen is already a
/// buffer of width-aware cells, so all a driver has to do is diff and write.
/// The terminal is always restored: on quit, on error (`deinit`), and on
/// SIGTERM/SIGHUP (see ``TUIApp``).
@MainActor
final class TerminalDriver {
    private var original = termios()
    private var isRaw = false
    private var previous: ScreenBuffer?

    /// The terminal's size in cells.
    var size: (width: Int, height: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Switches to raw mode and the alternate screen, hiding the cursor.
    func start() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TUIError("archive-tui needs a terminal: run it in a terminal window, not with redirected input or output")
        }
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw TUIError("cannot read the terminal settings: \(String(cString: strerror(errno)))")
        }
        TerminalRestorer.save(original)
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            throw TUIError("cannot switch the terminal to raw mode: \(String(cString: strerror(errno)))")
        }
        isRaw = true
        Self.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    /// Restores the terminal as it was before ``start()``.
    func stop() {
        guard isRaw else { return }
        isRaw = false
        TerminalRestorer.restore()
    }

    /// Forgets what is on screen, so that the next draw repaints everything (after a resize).
    func invalidate() {
        previous = nil
    }

    /// Draws `buffer`, writing only the rows and cells that changed since the last draw.
    func draw(_ buffer: ScreenBuffer) {
        var output = ""
        let full = previous == nil || previous?.width != buffer.width || previous?.height != buffer.height
        if full { output += "\u{1B}[0m\u{1B}[2J" }
        for y in 0..<buffer.height {
            var first = -1
            var last = -1
            for x in 0..<buffer.width where full || previous?[x, y] != buffer[x, y] {
                if first < 0 { first = x }
                last = x
            }
            guard first >= 0 else { continue }
            if buffer[first, y].isContinuation, first > 0 { first -= 1 }
            output += "\u{1B}[\(y + 1);\(first + 1)H"
            var style: Style?
            for x in first...last {
                let cell = buffer[x, y]
                if cell.isContinuation { continue }
                if cell.style != style {
                    output += cell.style.sgr
                    style = cell.style
                }
                output += cell.text
            }
            // A wide glyph ending the run also redraws its continuation cell.
            output += "\u{1B}[0m"
        }
        previous = buffer
        Self.write(output)
    }

    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(STDOUT_FILENO, base + offset, buffer.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// Restores the terminal from anywhere, including signal handlers and `atexit`.
enum TerminalRestorer {
    // nonisolated(unsafe): written once before raw mode starts, then read and
    // cleared when restoring (at quit, at exit, or from a signal handler that
    // exits right after); the saved settings are plain C values.
    nonisolated(unsafe) private static var saved: termios?

    static func save(_ settings: termios) {
        saved = settings
        atexit { TerminalRestorer.restore() }
    }

    /// Drops the saved settings without touching the terminal (it hung up).
    static func forget() {
        saved = nil
    }

    /// Leaves the alternate screen, shows the cursor and restores the saved settings.
    static func restore() {
        guard var settings = saved else { return }
        saved = nil
        let text = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
        _ = text.withCString { Glibc.write(STDOUT_FILENO, $0, strlen($0)) }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
    }
}

/// A failure of the TUI itself, reported in one line.
struct TUIError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
