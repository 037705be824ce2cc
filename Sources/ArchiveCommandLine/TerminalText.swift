#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Text from the catalog, an import file or the database, made safe to print
/// on a terminal: the one function both fronts use for human output.
///
/// A string from a server or a file may hold escape sequences (an OSC that sets
/// the window title, a CSI that moves the cursor), a carriage return that forges
/// a line, or bidirectional overrides that reorder what is shown. Each such
/// character is shown as a visible escape instead (`\r`, `\u{1B}`, `\u{202E}`),
/// so what is printed is exactly what is stored, and nothing is executed.
/// `--json` output is exact JSON and does not go through this.
public enum TerminalText {
    /// `text` with every control character shown as a visible escape.
    public static func visible(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// `text` with its lines kept and every other control character shown as a
    /// visible escape: for messages of several lines (an error and its usage).
    public static func visibleLines(_ text: String) -> String {
        // Appended line by line: the generic `joined(separator:)` cost a cold command a
        // scan of the binary's protocol conformances for its associated type (`perf record`).
        var result = ""
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { result += "\n" }
            result += visible(line)
        }
        return result
    }

    /// Writes `text` and a newline on stderr through ``visibleLines(_:)``: the one way
    /// both fronts write a message there (errors, warnings, notes), since a message
    /// may quote a path, a value from a file or a server's reason.
    public static func writeLineToStandardError(_ text: String) {
        StandardStream.error(visibleLines(text) + "\n")
    }

    /// Whether `scalar` must not reach a terminal as it is: C0 controls, DEL,
    /// C1 controls, and the bidirectional formatting characters.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
