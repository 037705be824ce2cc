import ArchiveFront
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What the process writes to: stdout for data, stderr for messages, with
/// colors only on a terminal (and never with NO_COLOR set).
enum Terminal {
    /// Whether stdout is a terminal.
    static let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
    /// Whether stderr is a terminal.
    static let stderrIsTTY = isatty(STDERR_FILENO) == 1

    /// Whether stdout gets ANSI styling.
    static var colorsOnStdout: Bool {
        guard stdoutIsTTY else { return false }
        // Two variables read with `getenv`, as `ArchiveLocation.processEnvironment` reads its
        // own: `ProcessInfo`'s first use builds the whole environment.
        return getenv("NO_COLOR") == nil && getenv("TERM").map { String(cString: $0) } != "dumb"
    }

    /// Writes a message line to stderr, control characters made visible.
    static func message(_ text: String) {
        TerminalText.writeLineToStandardError(text)
    }

    /// Writes raw text to stderr (no newline), for progress bars.
    static func status(_ text: String) {
        try? FileDescriptorHandle.standardError.write(text)
    }

    /// `text` as one word of a POSIX shell command: in single quotes, a single quote
    /// written `'\''` (for commands printed for the user to run).
    ///
    /// A text with a character that must not reach the terminal (a tab, a newline, an
    /// escape: ``TerminalText/isUnsafe(_:)``) is written with ANSI-C quoting, `$'a\tb'`
    /// (bash, zsh, ksh), which names the character visibly and, pasted,
    /// gives the shell the very same text back: its visible form (`\t` as two
    /// characters) would search for something else.
    static func shellQuoted(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: TerminalText.isUnsafe) else {
            return "'" + text.replacing("'", with: "'\\''") + "'"
        }
        var quoted = "$'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": quoted += "\\\\"
            case "'": quoted += "\\'"
            case "\t": quoted += "\\t"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            default:
                guard TerminalText.isUnsafe(scalar) else {
                    quoted.unicodeScalars.append(scalar)
                    continue
                }
                let hex = String(scalar.value, radix: 16)
                quoted += scalar.value <= 0xFFFF
                    ? "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    : "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
            }
        }
        return quoted + "'"
    }

    // MARK: - Styling

    static let bold = "\u{1B}[1m"
    static let dim = "\u{1B}[2m"
    static let highlight = "\u{1B}[1;30;43m"
    static let reset = "\u{1B}[0m"

    /// A highlighted text: its matched parts styled when `enabled` (every part is already terminal-safe).
    static func highlighted(_ text: HighlightedText, enabled: Bool) -> String {
        // Appended one by one: the generic `joined()` cost a cold `archive search` a scan
        // of the binary's protocol conformances for its associated type (`perf record`).
        var result = ""
        for segment in text.segments {
            if segment.isMatch && enabled {
                result += highlight + segment.text + reset
            } else {
                result += segment.text
            }
        }
        return result
    }

    /// `text` wrapped in `style` when `enabled`.
    static func styled(_ text: String, _ style: String, enabled: Bool) -> String {
        enabled ? style + text + reset : text
    }
}
