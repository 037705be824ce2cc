import ArchiveCommandLine
import ArchiveServerSQLite
import ArchiveServerStorage
import ArchiveServer
import ArchiveServerPostgres
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// `archive-server restore`: a backup put back in place, keeping every revocation made since
/// it was written (``RevocationRecord``), with new feeds; the service stopped.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup back in place, keeping what was revoked since; the service stopped.",
        discussion: """
            SQLite: archive-server --database DB restore BACKUP puts BACKUP (written by \
            archive-server backup) in place of DB. PostgreSQL: restore the dump into a new \
            database with pg_restore, then archive-server --postgres NEW restore --from OLD, \
            OLD the database it replaces. Either way, what the database replaced had revoked \
            stays revoked in the copy (device tokens, signed-out browsers, used sign-in \
            links, removed users), no user ID is given twice, and every user gets a new feed: \
            each device reads it again and sends what the copy lacks (docs/OPERATIONS.md).
            """)

    @OptionGroup var storage: ServerStorageOptions
    @ParentCommand var root: ArchiveServerCommand

    @Argument(help: ArgumentHelp("SQLite: the backup to put in place of the database.", valueName: "backup"))
    var backup: String?

    @Option(name: .customLong("from"), help: ArgumentHelp("PostgreSQL: the database the restored one replaces, whose revocations it keeps.", valueName: "url"))
    var from: String?

    @Flag(name: .customLong("replaced-database-lost"), help: "The database replaced is gone: restore keeping nothing of it (every revocation since the backup must be made again).")
    var replacedDatabaseLost = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func validate() throws {
        if replacedDatabaseLost, from != nil { throw ValidationError("--from names the database replaced, --replaced-database-lost says it is gone: give one") }
    }

    func run() async throws {
        var logger = Logger(label: "archive-server")
        logger.logLevel = .warning
        let storage = self.storage.merged(over: root.storage)
        let outcome: RestoreOutcome
        if let location = try storage.postgresLocation() {
            guard backup == nil else {
                throw ServerCLIError("PostgreSQL restores from pg_dump into a new database (pg_restore); then run archive-server --postgres NEW restore --from OLD, without a file")
            }
            var record = RevocationRecord()
            if let from {
                let replaced: PostgresLocation
                do {
                    replaced = try PostgresLocation(url: from)
                } catch {
                    throw ServerCLIError("--from \(from): \(error)")
                }
                guard replaced.description != location.description else {
                    throw ServerCLIError("--from names the restored database itself: name the database it replaces")
                }
                record = try await Self.storageErrors { try await PostgresSyncStorage.with(replaced, logger: logger) { try await $0.revocationRecord() } }
            } else if !replacedDatabaseLost {
                throw ServerCLIError(
                    "name the database the restored one replaces (--from URL), whose revocations it keeps; if it is lost, say so with --replaced-database-lost")
            }
            outcome = try await Self.storageErrors { try await PostgresSyncStorage.with(location, logger: logger) { try await $0.restore(keeping: record) } }
        } else {
            guard let backup else { throw ServerCLIError("name the backup to put in place: archive-server --database DB restore BACKUP") }
            guard from == nil, !replacedDatabaseLost else {
                throw ServerCLIError("--from and --replaced-database-lost are PostgreSQL's: here the database replaced is --database's, if it exists")
            }
            let database = try storage.databasePath()
            if access(database, F_OK) != 0 {
                StandardStream.error("no database at \(database): nothing of one is kept; revoke again every device lost since the backup\n")
            }
            do {
                outcome = try ServerRestore.restore(backup, over: database)
            } catch let error as ServerRestoreError {
                throw ServerCLIError(error.description)
            } catch let error as ServerStorageError {
                throw ServerCLIError(error.description)
            }
        }
        if json {
            print(try ServerJSON.text(outcome))
            return
        }
        print("""
            restored: \(outcome.credentialsRevoked) credential(s) revoked since the backup and \(outcome.usersRemoved) user(s) removed since stay so; \
            \(outcome.users) user(s), each with a new feed: every device reads it again at its next sync and sends what the backup lacks
            """)
    }

    private static func storageErrors<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as ServerStorageError {
            throw ServerCLIError(error.description)
        } catch let error as PostgresStorageError {
            throw ServerCLIError(error.description)
        }
    }
}
