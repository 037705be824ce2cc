public import ArchiveStorage
package import SQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Creates an archive database whole or not at all, for a bulk store into a file
/// that does not exist yet (`archive import` into a new database).
///
/// The database is built in a temporary file beside `path` that no other process
/// knows of, so it needs neither write-ahead logging nor another reader's
/// isolation: it is opened with SQLite's rollback journal, which journals no page
/// past the file's original end. Every page is written once, where WAL writes it
/// to the log and then again to the file (an import of a million favorites: 9.0 s
/// → 6.4 s). Then the file is switched to WAL as every archive is, closed, synced,
/// and linked into place: never over a file, so a database another process
/// created at `path` meanwhile is left alone and the build is refused
/// (``FavoritesImportError/databaseAppeared(path:)``). On any failure, the
/// temporary file and its journal are removed and `path` is as it was: missing.
///
/// A file system without hard links (FAT, exFAT, some network and FUSE file
/// systems) is found before anything is built, by linking the empty temporary
/// file once: the caller's fallback then runs instead (the import opens the
/// database in place, as it opens an existing one). So it does for a database
/// name too long to leave room for the temporary file's, or for its journal's.
public struct NewDatabaseFile: Sendable {
    /// The database to create.
    public let path: String
    /// `link(2)`; a test stands in a file system without hard links.
    let linkFile: @Sendable (_ existing: String, _ new: String) -> Int32
    /// How the temporary file is opened (its journal mode aside); a test's crash VFS.
    package var configuration = Configuration()

    /// A builder of a new database at `path`.
    public init(creating path: String) {
        self.init(creating: path, linkFile: { link($0, $1) })
    }

    init(creating path: String, linkFile: @escaping @Sendable (_ existing: String, _ new: String) -> Int32) {
        self.path = path
        self.linkFile = linkFile
    }

    /// Creates the database, runs `body` on it (every write it makes is in the new
    /// file), then puts the file in place; throws, with nothing created, when
    /// `body` or any step fails. On a file system without hard links, or for a name
    /// too long for the temporary file's, returns what `fallback` returns instead
    /// (nothing was built), or throws when there is none.
    public func build<Result>(
        _ body: (ArchiveDatabase) throws -> Result, withoutHardLinks fallback: (() throws -> Result)? = nil
    ) throws -> Result {
        let parts = FilePathParts(path)
        removeAbandonedBuilds(in: parts)
        let temporary = parts.sibling(named: "\(Self.prefix(parts))\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        // Claimed empty (SQLite takes an empty file for a new database), so no one else's file is opened.
        let descriptor = PartialFiles.shared.create(temporary, flags: O_WRONLY | O_CLOEXEC, mode: 0o644)
        guard descriptor >= 0 else {
            // A name near the file system's limit leaves no room for the temporary file's
            // longer one, though the database's own fits: the fallback opens it in place.
            if errno == ENAMETOOLONG, let fallback { return try fallback() }
            throw FavoritesImportError.cannotCreate(path: path, reason: Self.reason())
        }
        close(descriptor)
        let journal = temporary + "-journal"
        let companions = [temporary, journal, temporary + "-wal", temporary + "-shm"]
        companions.forEach(PartialFiles.shared.register)
        defer { companions.forEach(PartialFiles.shared.unregister) }
        // Whether the file system links files, asked before any work: the build ends with a
        // link. The probe takes the journal's name, the longest SQLite will make beside the
        // temporary file, and is gone before SQLite makes it: a name too long for it is one
        // too long for the build, which the fallback then does in place.
        guard linkFile(temporary, journal) == 0 else {
            let code = errno
            companions.forEach { unlink($0) }
            if code == ENAMETOOLONG, let fallback { return try fallback() }
            guard [EPERM, EOPNOTSUPP, ENOSYS].contains(code) else {
                throw FavoritesImportError.cannotCreate(path: path, reason: String(cString: strerror(code)))
            }
            guard let fallback else {
                throw FavoritesImportError.cannotCreate(
                    path: path, reason: "the file system cannot link files (\(String(cString: strerror(code)))), which puts a new database in place")
            }
            return try fallback()
        }
        unlink(journal)
        do {
            let result = try buildAndClose(temporary, body)
            try sync(temporary)
            // link, not rename: it never replaces a file that appeared at `path` meanwhile.
            guard linkFile(temporary, path) == 0 else {
                if errno == EEXIST { throw FavoritesImportError.databaseAppeared(path: path) }
                throw FavoritesImportError.cannotCreate(path: path, reason: Self.reason())
            }
            unlink(temporary)
            if let reason = AtomicFile.syncDirectory(parts.directory) {
                throw FavoritesImportError.directoryNotSynced(path: path, reason: reason)
            }
            return result
        } catch let error as SQLiteError {
            companions.forEach { unlink($0) }
            // Named after the database asked for: the temporary file is gone.
            throw FavoritesImportError.cannotCreate(path: path, reason: error.message)
        } catch {
            companions.forEach { unlink($0) }
            throw error
        }
    }

    /// Opens `temporary` with the rollback journal, runs `body`, switches the file to
    /// WAL, and closes it (the connection ends with this call's scope).
    private func buildAndClose<Result>(_ temporary: String, _ body: (ArchiveDatabase) throws -> Result) throws -> Result {
        var configuration = self.configuration
        configuration.walMode = false
        let database = try ArchiveDatabase(path: temporary, configuration: configuration)
        let result = try body(database)
        let mode = try database.queue.read { db in try db.fetchOne("PRAGMA journal_mode = WAL") { try $0.column(String.self, at: 0) } }
        guard mode?.lowercased() == "wal" else {
            throw FavoritesImportError.cannotCreate(path: path, reason: "SQLite kept the journal mode \(mode ?? "?") instead of WAL")
        }
        return result
    }

    /// The start of a temporary file's name: `.NAME.new-`, then the builder's process ID.
    private static func prefix(_ parts: FilePathParts) -> String { ".\(parts.name).new-" }

    /// Removes the temporary files (and journals) of builds of this database whose
    /// process no longer runs: one killed outright (SIGKILL, a power cut) cannot
    /// remove its own. A file whose process ID is in use again is left alone.
    private func removeAbandonedBuilds(in parts: FilePathParts) {
        let prefix = Self.prefix(parts)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parts.directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let pid = rest.split(separator: "-", maxSplits: 1).first.flatMap({ pid_t($0) }), pid > 0 else { continue }
            if kill(pid, 0) == -1, errno == ESRCH { unlink(parts.sibling(named: name)) }
        }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }

    /// Syncs the built file `temporary`; an error names the database asked for.
    private func sync(_ temporary: String) throws {
        let descriptor = open(temporary, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FavoritesImportError.cannotCreate(path: path, reason: Self.reason()) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FavoritesImportError.cannotCreate(path: path, reason: Self.reason()) }
    }
}
