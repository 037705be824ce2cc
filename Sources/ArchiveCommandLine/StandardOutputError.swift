#if canImport(Glibc)
import Glibc
#endif
import CStandardIO

/// Standard output could not take what a command wrote (a full disk behind a
/// redirection, a closed descriptor): the output is incomplete, and the command
/// fails instead of exiting 0 as if it were whole.
public struct StandardOutputError: Error, CustomStringConvertible, Sendable {
    /// What the system said ("No space left on device").
    public let reason: String

    /// A failure for `reason`.
    public init(reason: String) {
        self.reason = reason
    }

    /// A message a person can act on.
    public var description: String {
        "cannot write to standard output: \(reason); what was written is incomplete"
    }

    /// Writes out what `print` left in standard output's buffer, and throws if
    /// that failed, or if any earlier write to it did. (`fflush(NULL)`: Swift 6 refuses
    /// a reference to C's `stdout` variable. glibc keeps a small buffer whose write
    /// failed, so that failure fails this flush again; but a text larger than the buffer
    /// is written past it, and its failure leaves only the stream's error flag, which
    /// `ferror` reads.)
    public static func flushStandardOutput() throws(StandardOutputError) {
        if fflush(nil) != 0 {
            throw StandardOutputError(reason: String(cString: strerror(errno)))
        }
        if archive_standard_output_failed() != 0 {
            // The flag keeps no reason; errno still holds the failed write's, unless a later
            // call replaced it.
            let reason = errno == 0 ? "a write failed" : String(cString: strerror(errno))
            throw StandardOutputError(reason: reason)
        }
    }
}
