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

    /// Every text read from the database goes through ``TerminalText/visible(_:)``: a
    /// database received from someone else must not drive the terminal.
    static func printHuman(_ status: MigrationStatus) {
        for migration in status.applied {
            let name = TerminalText.visible(migration.name)
            let appliedAt = TerminalText.visible(migration.appliedAt)
            let checksum = TerminalText.visible(migration.checksum.prefix(12))
            print("applied  \(migration.version)  \(name)  \(appliedAt)  \(checksum)")
        }
        for migration in status.pending {
            print("pending  \(migration.version)  \(TerminalText.visible(migration.name))")
        }
    }
}
