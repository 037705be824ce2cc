import SQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files that belong to a database, whatever name it is reached by: the one
/// place that decides what an output (an export, the action log, a sync peer's
/// file) must never be.
///
/// SQLite keeps a database in up to four files: the database, its write-ahead log
/// `-wal`, the log's index `-shm` and the rollback journal `-journal`, named after
/// the database file *as SQLite resolves it*: its unix VFS follows symbolic links
/// (the final component and every directory), so a database opened as
/// `fav.sqlite3 -> real/fav.sqlite3` logs to `real/fav.sqlite3-wal`. Replacing any of
/// these loses or corrupts committed data ("How To Corrupt An SQLite Database
/// File", sections 1.3 and 2). One file can have many names:
///
/// - a symbolic link to it, or to a directory above it (and `.`/`..` in the path);
/// - a hard link (SQLite does not follow these: its companions are named after the
///   name it was given, so a database with two hard links can have two WALs);
/// - a bind mount of its directory, `/proc/self/fd/N`, `/dev/fd/N`;
/// - on a case-insensitive file system, any spelling of its name.
///
/// So a path belongs to the database when it names, through any of these, one of
/// the companion files of the given name or of the resolved one: by device and
/// inode when the file exists; when it does not exist yet (a `-wal` SQLite has not
/// created, or removed at its last close), by the identity (device and inode) of
/// the directory it would be created in and its name, compared ignoring case.
package struct DatabaseFiles: Sendable {
    /// The companions SQLite may create beside a database, the database itself first.
    package static let suffixes = ["", "-wal", "-shm", "-journal"]

    private var files: [Identity] = []
    private var names: [(directory: Identity, name: String)] = []

    private struct Identity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// The files of the database at `databasePath`, as they are now.
    package init(databasePath: String) {
        let resolved = FilePathParts.resolvingLinks(databasePath)
        for base in Set([databasePath, resolved]) {
            for suffix in Self.suffixes {
                let path = base + suffix
                var info = stat()
                if stat(path, &info) == 0 { files.append(Identity(info)) }
                let parts = FilePathParts(path)
                if stat(parts.directory, &info) == 0 {
                    names.append((Identity(info), parts.name.lowercased()))
                }
            }
        }
    }

    /// Whether `path` names one of the database's files (through any link), or would
    /// once SQLite created it.
    package func contains(path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0, files.contains(Identity(info)) { return true }
        // Not there yet (or a dangling link): where it would be created.
        let target = FilePathParts.resolvingLinks(path)
        let parts = FilePathParts(target)
        guard stat(parts.directory, &info) == 0 else { return false }
        let directory = Identity(info)
        let name = parts.name.lowercased()
        return names.contains { $0.directory == directory && $0.name == name }
    }

    /// Whether the open file `descriptor` is one of the database's files.
    package func contains(descriptor: Int32) -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return files.contains(Identity(info))
    }
}
