import SQLite
#if canImport(Glibc)
import Glibc
#endif

/// A backup of the service's SQLite database (`archive-server backup PATH`): what it holds
/// and where.
///
/// The copy is SQLite's `VACUUM INTO` of one read transaction (consistent while the service
/// runs: pushes commit on, the copy sees none of them half), written beside `PATH`, synced,
/// renamed onto it and its directory synced: `PATH` is the previous file or the whole new
/// one. In the copy, every user gets a new feed (``UserDirectory/renewFeeds()``): a copy
/// put back in place (``ServerRestore``) is a feed every device reads again from its start, and each device
/// then sends what the copy lacks, so that all converge with nothing lost (docs/OPERATIONS.md).
public struct ServerBackup: Sendable, Hashable, Codable {
    /// Where the backup is.
    public let path: String
    /// Its size in bytes.
    public let bytes: Int64
    /// Each user's feed position in it (the seq of the last change it holds), by name.
    public let feeds: [String: Int64]

    /// Writes a backup of `database` at `path` (replaced whole if it exists).
    ///
    /// `path` is resolved as `archive export --output` resolves its file (``OutputPath``): a
    /// symbolic link is followed (its target is replaced, the link stays); then only a regular
    /// file or a new name is written. A FIFO, a device (`/dev/null`, `/dev/stdout`), a socket
    /// or a directory is refused before anything is written: a backup is a database file,
    /// which the copy beside it and the rename would put in that special file's place.
    public static func write(_ database: ServerDatabase, to path: String) throws -> ServerBackup {
        guard path != Database.inMemoryPath, !path.isEmpty else { throw ServerBackupError.cannotWrite(path: path, reason: "give a file's path") }
        guard !path.hasSuffix("/") else { throw ServerBackupError.cannotWrite(path: path, reason: "it ends in /, so it names a directory; name a file inside it") }
        let output: OutputPath
        do {
            output = try OutputPath(path)
        } catch {
            throw ServerBackupError.cannotWrite(path: path, reason: error.reason)
        }
        switch output.kind {
        case .missing, .regularFile: break
        case .directory:
            throw ServerBackupError.cannotWrite(path: path, reason: "it is a directory; name a file inside it")
        case .fifo, .characterDevice, .other:
            throw ServerBackupError.cannotWrite(
                path: path, reason: "it is \(output.kind.described), not a regular file: a backup is a database file of its own; give a regular file's path or a new name")
        }
        if let own = realpath(database.path, nil), let target = Self.resolved(output.target) {
            defer { free(own) }
            let source = String(cString: own)
            guard target != source, target != source + "-wal", target != source + "-shm", target != source + "-lock" else {
                throw ServerBackupError.cannotWrite(path: path, reason: "it is the service's own database; give another path")
            }
        }
        let parts = FilePathParts(output.target)
        let temporary = parts.sibling(named: ".\(parts.name).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let companions = [temporary, temporary + "-journal", temporary + "-wal", temporary + "-shm"]
        do {
            try database.queue.read { db in try db.execute("VACUUM INTO ?", temporary) }
            let feeds = try renewFeeds(in: temporary)
            try sync(temporary, path: path)
            guard rename(temporary, output.target) == 0 else { throw ServerBackupError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
            try sync(parts.directory, path: path, directory: true)
            return ServerBackup(path: path, bytes: size(of: path), feeds: feeds)
        } catch let error as SQLiteError {
            companions.forEach { unlink($0) }
            throw ServerBackupError.cannotWrite(path: path, reason: "\(error)")
        } catch {
            companions.forEach { unlink($0) }
            throw error
        }
    }

    /// Gives every user of the copy at `temporary` a new feed, and reads each user's feed
    /// position. The copy is closed when this returns (its rollback journal gone).
    private static func renewFeeds(in temporary: String) throws -> [String: Int64] {
        var configuration = Configuration()
        configuration.walMode = false
        let copy = try DatabaseQueue(path: temporary, configuration: configuration)
        defer { copy.close() }
        return try copy.write { db in
            try db.execute("UPDATE users SET feed = randomblob(16)")
            let rows = try db.fetchAll("SELECT name, seq FROM users") { (try $0.column(String.self, at: 0), try $0.int64(at: 1)) }
            return Dictionary(rows, uniquingKeysWith: max)
        }
    }

    /// The size of the file at `path` in bytes (0 when it cannot be opened).
    private static func size(of path: String) -> Int64 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        return max(0, Int64(lseek(descriptor, 0, SEEK_END)))
    }

    /// Flushes the file (or directory) at `target` to the disk.
    static func sync(_ target: String, path: String, directory: Bool = false) throws {
        let descriptor = open(target, O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0))
        guard descriptor >= 0 else { throw ServerBackupError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        // A file system that cannot sync a directory (EINVAL) has nothing more to do.
        guard fsync(descriptor) == 0 || (directory && errno == EINVAL) else {
            throw ServerBackupError.cannotWrite(path: path, reason: "it could not be flushed to the disk: \(String(cString: strerror(errno)))")
        }
    }

    /// `path` with its directory resolved (the file itself may not exist yet), or `nil`.
    private static func resolved(_ path: String) -> String? {
        let parts = FilePathParts(path)
        guard let directory = realpath(parts.directory, nil) else { return nil }
        defer { free(directory) }
        return String(cString: directory) + "/" + parts.name
    }
}

/// Why a backup was not written (nothing of it left behind; an older file at the path kept).
public enum ServerBackupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The backup at `path` could not be written, for `reason`.
    case cannotWrite(path: String, reason: String)
    /// The service keeps its data in PostgreSQL, whose own tools back it up.
    case postgres

    /// What failed and what to do.
    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason):
            "cannot write the backup \(path): \(reason); nothing was written there (an older backup at that path is as it was)"
        case .postgres:
            "the service keeps its data in PostgreSQL: back it up with pg_dump, and put it back with pg_restore into a new database, then archive-server --postgres NEW restore --from OLD (docs/OPERATIONS.md)"
        }
    }
}
