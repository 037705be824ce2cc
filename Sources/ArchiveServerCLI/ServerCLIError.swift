#if canImport(Glibc)
import Glibc
#endif

/// A failure `archive-server` reports on stderr (exit status 1): what failed and what to do.
struct ServerCLIError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// Creates `directory` and its parents (mode 0700: the service's data is private) when missing.
    static func creatingDirectory(_ directory: String) throws {
        var built = ""
        for part in directory.split(separator: "/", omittingEmptySubsequences: true) {
            built += "/" + part
            if mkdir(built, 0o700) != 0, errno != EEXIST {
                throw ServerCLIError("cannot create the directory \(built): \(String(cString: strerror(errno))); give --database a path")
            }
        }
    }
}
