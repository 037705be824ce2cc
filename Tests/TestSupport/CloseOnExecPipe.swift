#if canImport(Glibc)
import Glibc
#endif
public import Foundation

/// A pipe whose two ends are close-on-exec: a program another test spawns
/// meanwhile does not inherit them.
///
/// Tests run in parallel, and many spawn the real binaries. An end inherited by
/// another test's child stays open as long as that child lives, so a reader
/// waiting for the end of the file (or a child waiting for the end of its
/// stdin) would wait for a stranger to exit. `pipe2(O_CLOEXEC)` would be atomic,
/// but Glibc's module does not export it; the flag is set right after `pipe`,
/// which leaves a window of two system calls instead of the pipe's whole life.
/// `dup2` onto a child's 0 or 1 (posix_spawn's file actions) clears the flag on
/// the copy, so the child that is meant to have an end still gets it.
public enum CloseOnExecPipe {
    /// Creates the pipe: `(read, write)`; the system's error when it cannot.
    public static func make() throws(POSIXError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw currentError() }
        for end in ends where fcntl(end, F_SETFD, FD_CLOEXEC) != 0 {
            let error = currentError()  // before `close` can change errno
            close(ends[0])
            close(ends[1])
            throw error
        }
        return (ends[0], ends[1])
    }

    private static func currentError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
