#if canImport(Glibc)
import Glibc
#endif

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
    /// that failed. (`fflush(NULL)`: Swift 6 refuses a reference to C's `stdout`
    /// variable. glibc keeps a buffer whose write failed, so an earlier failure
    /// fails this flush again.)
    public static func flushStandardOutput() throws(StandardOutputError) {
        if fflush(nil) != 0 {
            throw StandardOutputError(reason: String(cString: strerror(errno)))
        }
    }
}
