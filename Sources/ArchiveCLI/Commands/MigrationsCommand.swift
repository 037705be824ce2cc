import ArchiveFront
import ArgumentParser

/// `archive migrations`.
struct MigrationsCommand: ReportCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrations",
        abstract: "Show the schema migrations the database has applied and those pending.",
        discussion: "Reads only: any other command that writes applies the pending migrations when it opens the database.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    static let report = ArchiveDatabase.migrationStatus(path:)

    static func printHuman(_ status: MigrationStatus) {
        for migration in status.applied {
            print("applied  \(migration.version)  \(migration.name)  \(migration.appliedAt)  \(migration.checksum.prefix(12))")
        }
        for migration in status.pending {
            print("pending  \(migration.version)  \(migration.name)")
        }
    }
}
