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
}
