#if canImport(Glibc)
import Glibc
#endif

/// A path a command writes a whole file to (`archive export --output`, `archive-server
/// backup`), resolved by one rule before a byte is written: a symbolic link is followed,
/// so its target is what is replaced and the link stays a link (as SQLite's own files are
/// reached); what the path then names decides what the command may do with it. The
/// replacement itself (a copy beside the target, synced, renamed onto it) is the command's.
package struct OutputPath: Sendable, Hashable {
    /// What the path names once its links are followed.
    package enum Kind: Sendable, Hashable {
        /// Nothing yet: a new file.
        case missing
        /// A regular file, replaced whole.
        case regularFile
        /// A directory: never a file's place.
        case directory
        /// A FIFO: nothing to replace, only a stream to write.
        case fifo
        /// A character device (`/dev/null`, a terminal): nothing to replace, only a stream.
        case characterDevice
        /// A socket or a block device.
        case other

        /// The kind in a sentence's words ("a FIFO").
        package var described: String {
            switch self {
            case .missing: "a new file"
            case .regularFile: "a regular file"
            case .directory: "a directory"
            case .fifo: "a FIFO"
            case .characterDevice: "a character device"
            case .other: "a socket or a block device"
            }
        }
    }

    /// Why a path could not be looked at: its `stat` failed other than with "no such file".
    package struct Unreadable: Error, Sendable {
        /// The system's words.
        package let reason: String
    }

    /// The path as given.
    package let argument: String
    /// The path its links end at: the file that is replaced.
    package let target: String
    /// What ``target`` names.
    package let kind: Kind

    /// Resolves `argument`.
    package init(_ argument: String) throws(Unreadable) {
        self.argument = argument
        target = FilePathParts.resolvingLinks(argument)
        var info = stat()
        guard stat(target, &info) == 0 else {
            guard errno == ENOENT else { throw Unreadable(reason: String(cString: strerror(errno))) }
            kind = .missing
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regularFile
        case S_IFDIR: kind = .directory
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .characterDevice
        default: kind = .other
        }
    }
}
