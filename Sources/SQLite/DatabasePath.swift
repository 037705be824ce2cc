#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The front-door check of a path that is to hold a database, before SQLite opens it: the
/// engine's (`ArchiveDatabase`) and the service's (`ServerDatabase`) alike.
package enum DatabasePath {
    /// Why a path cannot hold a database.
    package enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not a database file: a directory, a device, a FIFO, an empty path, …
        case notADatabaseFile(path: String, kind: String)
        /// A file name too long for the files SQLite makes beside it (`NAME-journal`,
        /// `NAME-wal`, `NAME-shm`) on its file system.
        case nameTooLong(path: String, bytes: Int, needed: String, limit: Int)
        /// A file with more than one hard link: SQLite keeps a write-ahead log per name, so
        /// a write through one name can be lost to a reader of the other.
        case hardLinked(path: String, links: Int)

        /// What is wrong, and what to do.
        package var description: String {
            switch self {
            case .notADatabaseFile(let path, let kind):
                "'\(path)' is \(kind), not a database file; nothing was opened or created (pass --database with a file path)"
            case .nameTooLong(let path, let bytes, let needed, let limit):
                "the file name of \(path) is \(bytes) bytes, too long for the file SQLite makes beside it (NAME\(needed)): this file system allows \(limit) bytes a name; nothing was opened or created (pass --database with a shorter name)"
            case .hardLinked(let path, let links):
                "\(path) has \(links) hard links (names): SQLite keeps a write-ahead log per name, so a change written through one name can be lost to a reader of another (\"How To Corrupt An SQLite Database File\", 2.5); nothing was opened. Keep one name: remove the other links (find -samefile \(path)), or use a copy (cp, not ln) as a database of its own"
            }
        }
    }

    /// Checks that `path` can hold a database: not empty, not ending in `/`, either
    /// missing or a regular file (symbolic links are followed) with one hard link, and with
    /// a file name that leaves room for the files SQLite makes beside it.
    package static func check(_ path: String) throws(Problem) {
        guard !path.isEmpty else { throw .notADatabaseFile(path: path, kind: "an empty path") }
        // `dir/` names a directory: SQLite would create a file named `dir` instead.
        guard !path.hasSuffix("/") else { throw .notADatabaseFile(path: path, kind: "a directory path (it ends in /)") }
        var info = stat()
        guard stat(path, &info) == 0 else {
            // Missing (or unreadable: SQLite reports that precisely): a new database.
            try checkNameLength(path, isNewDatabase: true)
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            // SQLite names its -wal and -shm after the path: two names of one file get two
            // logs, and a write through one is lost to the other.
            guard info.st_nlink <= 1 else { throw .hardLinked(path: path, links: Int(info.st_nlink)) }
            try checkNameLength(path, isNewDatabase: info.st_size == 0)  // an empty file is a new database
            return
        case S_IFDIR: throw .notADatabaseFile(path: path, kind: "a directory")
        case S_IFCHR: throw .notADatabaseFile(path: path, kind: "a character device")
        case S_IFBLK: throw .notADatabaseFile(path: path, kind: "a block device")
        case S_IFIFO: throw .notADatabaseFile(path: path, kind: "a FIFO (named pipe)")
        case S_IFSOCK: throw .notADatabaseFile(path: path, kind: "a socket")
        default: throw .notADatabaseFile(path: path, kind: "not a regular file")
        }
    }

    /// Refuses a file name too long for the files SQLite makes beside the database:
    /// `NAME-journal` while a new one is created (before it switches to WAL), then
    /// `NAME-wal` and `NAME-shm`. SQLite would create the database file and then fail
    /// on the journal, leaving an empty file behind and a message about neither.
    private static func checkNameLength(_ path: String, isNewDatabase: Bool) throws(Problem) {
        let needed = isNewDatabase ? "-journal" : "-wal"
        // NAME_MAX is 255 on Linux's common file systems: shorter names (and so every
        // shorter path) need no question.
        guard path.utf8.count + needed.utf8.count > 255 else { return }
        let parts = FilePathParts(path)
        let bytes = parts.name.utf8.count
        guard bytes + needed.utf8.count > 255 else { return }
        let asked = pathconf(parts.directory, Int32(_PC_NAME_MAX))
        let limit = asked > 0 ? asked : 255
        guard bytes + needed.utf8.count > limit else { return }
        throw .nameTooLong(path: path, bytes: bytes, needed: needed, limit: limit)
    }
}
