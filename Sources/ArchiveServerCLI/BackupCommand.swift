import ArchiveServerSQLite
import ArchiveServer
import ArgumentParser

/// `archive-server backup PATH`: a consistent copy of the SQLite database, while the
/// service runs (``ServerBackup``).
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of the service's SQLite database, while it runs.",
        discussion: """
            PATH is written whole or not at all (a copy beside it, synced, renamed onto it). \
            It says the copy's size and each user's feed position in it. Put back in place \
            with archive-server restore PATH (the service stopped), every revocation since \
            is kept and every device reads its feed again and sends what the copy lacks: \
            nothing is lost. PostgreSQL: pg_dump, then pg_restore into a new database and \
            archive-server restore --from the old one (docs/OPERATIONS.md).
            """)

    @OptionGroup var storage: ServerStorageOptions
    @ParentCommand var root: ArchiveServerCommand

    @Argument(help: ArgumentHelp("Where to write the backup.", valueName: "path"))
    var path: String

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() async throws {
        let storage = self.storage.merged(over: root.storage)
        guard try storage.postgresLocation() == nil else { throw ServerCLIError(ServerBackupError.postgres.description) }
        let database = try storage.open()
        defer { database.close() }
        let backup: ServerBackup
        do {
            backup = try ServerBackup.write(database, to: path)
        } catch let error as ServerBackupError {
            throw ServerCLIError(error.description)
        }
        if json {
            print(try ServerJSON.text(backup))
            return
        }
        let changes = backup.feeds.values.reduce(0, +)
        print("wrote \(backup.path): \(backup.bytes) bytes, \(backup.feeds.count) user(s), their feeds at \(changes) change(s) in all")
        for (name, seq) in backup.feeds.sorted(by: { $0.key < $1.key }) { print("\(name)\tfeed at \(seq)") }
    }
}
