import ArchiveFront
import ArgumentParser

/// `archive check`.
struct CheckCommand: ReportCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the database's integrity (exit 1 when a problem is found).",
        discussion: "Reads only: nothing is created, migrated or repaired. A file that cannot be opened is reported as a problem.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    static let report = ArchiveDatabase.integrityReport(path:)

    static func printHuman(_ report: IntegrityReport) {
        print(report.isOK ? "ok" : "problems found:")
        report.problems.forEach { print("  \(TerminalText.visible($0))") }
        print("\(report.favorites) favorites, \(report.keyValueEntries) key-value entries")
        print("installed: \(report.installDate.map { SettingValue.date($0).description } ?? "unknown (created before install dates were recorded)")")
    }

    static func isFailure(_ report: IntegrityReport) -> Bool { !report.isOK }
}
