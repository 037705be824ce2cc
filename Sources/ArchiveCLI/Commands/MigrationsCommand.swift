import ArchiveFront
import ArgumentParser

/// `archive migrations`.
struct MigrationsCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "migrations",
        abstract: "Show the schema migrations the database has applied and those pending.",
        discussion: "Reads only: any other command that writes applies the pending migrations when it opens the database.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    func run() async throws {
        let status = try ArchiveDatabase.migrationStatus(path: location().databasePath)
        if json {
            try JSONOutput.print(status)
            return
        }
        for migration in status.applied {
            print("applied  \(migration.version)  \(migration.name)  \(migration.appliedAt)  \(migration.checksum.prefix(12))")
        }
        for migration in status.pending {
            print("pending  \(migration.version)  \(migration.name)")
        }
    }
}
