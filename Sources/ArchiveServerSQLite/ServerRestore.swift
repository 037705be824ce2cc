public import ArchiveServerStorage
import SQLite
#if canImport(Glibc)
import Glibc
#endif

/// `archive-server restore BACKUP`: a backup put in place of the service's SQLite database,
/// keeping what that database revoked since the backup was made (``RevocationRecord``).
///
/// With the service stopped (``ServiceLock``): the database in place (if any) is opened, its
/// record read and its WAL checkpointed away as it closes; the backup is copied beside it
/// (`VACUUM INTO`, from a read-only connection: the backup is never changed), migrated, made
/// to keep the record (``UserStore/restore(keeping:)``: the revoked credentials and removed
/// users deleted, new feeds), synced, and renamed onto the database, its directory synced.
/// The database is the old file or the whole restored one, never a mix.
public enum ServerRestore {
    /// Puts the backup at `backup` in place of the database at `database`.
    public static func restore(_ backup: String, over database: String) throws -> RestoreOutcome {
        let given: OutputPath
        do {
            given = try OutputPath(backup)
        } catch {
            throw ServerRestoreError.cannotRestore(backup: backup, reason: error.reason)
        }
        switch given.kind {
        case .regularFile: break
        case .missing: throw ServerRestoreError.cannotRestore(backup: backup, reason: "no such file")
        default: throw ServerRestoreError.cannotRestore(backup: backup, reason: "it is \(given.kind.described), not a regular file: give a backup written by archive-server backup")
        }
        if let own = realpath(database, nil), let given = realpath(backup, nil) {
            defer { free(own); free(given) }
            guard String(cString: own) != String(cString: given) else {
                throw ServerRestoreError.cannotRestore(backup: backup, reason: "it is the service's database itself; give a backup written by archive-server backup")
            }
        }
        let lock: ServiceLock
        do {
            lock = try ServiceLock(database: database, for: .restore)
        } catch {
            throw ServerRestoreError.cannotRestore(backup: backup, reason: error.description)
        }
        defer { withExtendedLifetime(lock) {} }

        var record = RevocationRecord()
        if access(database, F_OK) == 0 {
            let live: ServerDatabase
            do {
                live = try ServerDatabase(path: database)
            } catch {
                throw ServerRestoreError.cannotReadRecord(database: database, reason: "\(error)")
            }
            defer { live.close() }
            record = try UserStore(database: live).revocationRecord()
        }

        let parts = FilePathParts(database)
        let temporary = parts.sibling(named: ".\(parts.name).restoring-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let companions = [temporary, temporary + "-journal", temporary + "-wal", temporary + "-shm"]
        do {
            var configuration = Configuration()
            configuration.readOnly = true
            configuration.walMode = false
            do {
                let source = try DatabaseQueue(path: backup, configuration: configuration)
                defer { source.close() }
                try source.read { db in try db.execute("VACUUM INTO ?", temporary) }
            } catch {
                throw ServerRestoreError.cannotRestore(backup: backup, reason: "it could not be read as a SQLite database: \(error)")
            }
            let outcome: RestoreOutcome
            do {
                let copy = try ServerDatabase(path: temporary)
                defer { copy.close() }
                outcome = try UserStore(database: copy).restore(keeping: record)
            } catch let error as ServerStorageError {
                throw error
            } catch {
                throw ServerRestoreError.cannotRestore(backup: backup, reason: "it is not a database of archive-server's: \(error)")
            }
            try ServerBackup.sync(temporary, path: backup)
            // The database was closed above, its WAL checkpointed into it and removed: none
            // of an old WAL may be read against the restored file.
            for suffix in ["-wal", "-shm"] where unlink(database + suffix) != 0 && errno != ENOENT {
                throw ServerRestoreError.cannotRestore(backup: backup, reason: "cannot remove \(database + suffix): \(String(cString: strerror(errno)))")
            }
            guard rename(temporary, database) == 0 else {
                throw ServerRestoreError.cannotRestore(backup: backup, reason: "cannot put it in place of \(database): \(String(cString: strerror(errno)))")
            }
            try ServerBackup.sync(parts.directory, path: backup, directory: true)
            return outcome
        } catch let error as ServerBackupError {
            companions.forEach { unlink($0) }
            if case .cannotWrite(_, let reason) = error { throw ServerRestoreError.cannotRestore(backup: backup, reason: reason) }
            throw error
        } catch {
            companions.forEach { unlink($0) }
            throw error
        }
    }
}

/// Why a restore did not happen (the database in place left as it was).
public enum ServerRestoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The backup at `backup` could not be put in place, for `reason`.
    case cannotRestore(backup: String, reason: String)
    /// The database in place at `database`, whose revocations the restore keeps, could not be read.
    case cannotReadRecord(database: String, reason: String)

    /// What failed and what to do.
    public var description: String {
        switch self {
        case .cannotRestore(let backup, let reason):
            "cannot restore \(backup): \(reason); the service's database is as it was"
        case .cannotReadRecord(let database, let reason):
            "cannot read what \(database) revoked (\(reason)), which the restore keeps: the service's database is as it was; "
                + "if that file is lost for good, move it away and restore again (every revocation since the backup must then be made again)"
        }
    }
}
