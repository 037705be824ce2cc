#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file path split into its directory and its last component, as POSIX
/// `dirname` and `basename` split it.
///
/// Written by hand because the paths split here come from users, and
/// swift-corelibs-foundation's `NSString.deletingLastPathComponent` traps on a
/// relative one-character name followed by a slash (`d/`, `./`, `é/`).
package struct FilePathParts: Sendable, Equatable {
    /// The directory: `.` for a bare name, `/` for a name in the root (or the root itself).
    package let directory: String
    /// The last component without trailing slashes; `/` for the root, empty for an empty path.
    package let name: String

    /// Splits `path`: `a/b/` is `a` and `b`, `b` is `.` and `b`, `/b` is `/` and `b`.
    package init(_ path: String) {
        let trimmed = Self.trimmingTrailingSlashes(Substring(path))
        if trimmed.isEmpty {
            (directory, name) = path.isEmpty ? (".", "") : ("/", "/")
            return
        }
        guard let slash = trimmed.lastIndex(of: "/") else {
            (directory, name) = (".", String(trimmed))
            return
        }
        let parent = Self.trimmingTrailingSlashes(trimmed[..<slash])
        directory = parent.isEmpty ? "/" : String(parent)
        name = String(trimmed[trimmed.index(after: slash)...])
    }

    /// The path of a file named `name` in this path's directory (`name` may hold slashes).
    package func sibling(named name: String) -> String {
        Self.joining(directory, name)
    }

    /// `directory/name`, without doubling the slash of the root.
    package static func joining(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func trimmingTrailingSlashes(_ path: Substring) -> Substring {
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" { end = path.index(before: end) }
        return path[..<end]
    }

    /// The path a chain of symbolic links ends at (relative links are relative to the
    /// link's directory), as SQLite's unix VFS follows them; `path` itself when it is
    /// not a link. A chain longer than the kernel's own limit (40) stops there.
    package static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            guard let destination = linkDestination(current) else { return current }
            current = destination.hasPrefix("/") ? destination : FilePathParts(current).sibling(named: destination)
        }
        return current
    }

    /// What the symbolic link at `path` holds, or `nil` when `path` is not one.
    private static func linkDestination(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
