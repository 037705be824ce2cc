#if canImport(Glibc)
import Glibc
#endif

/// Lines written straight to a file descriptor, unbuffered: messages for people on stderr,
/// and the base URL on stdout, which a script reads while the server runs. Every program's
/// messages to stderr go through it (`TerminalText.writeLineToStandardError`).
public enum StandardStream {
    /// Writes `text` to stderr.
    public static func error(_ text: String) {
        write(text, to: 2)
    }

    /// Writes `text` to stdout now (not when a buffer fills).
    public static func output(_ text: String) {
        write(text, to: 1)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
