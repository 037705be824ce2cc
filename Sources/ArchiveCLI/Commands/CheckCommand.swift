import ArchiveFront
import ArgumentParser

/// `archive check`.
struct CheckCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the database's integrity (exit 1 when a problem is found).",
        discussion: "Reads only: nothing is created, migrated or repaired. A file that cannot be opened is reported as a problem.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    func run() async throws {
        let report = try ArchiveDatabase.integrityReport(path: location().databasePath)
        if json {
            try JSONOutput.print(report)
        } else {
            print(report.isOK ? "ok" : "problems found:")
            report.problems.forEach { print("  \(TerminalText.visible($0))") }
            print("\(report.favorites) favorites, \(report.keyValueEntries) key-value entries")
        }
        if !report.isOK {
            throw ExitCode.failure
        }
    }
}
