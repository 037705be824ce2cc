import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser

/// `archive check`.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the database's integrity (exit 1 when a problem is found).")

    @OptionGroup var global: GlobalOptions

    struct Output: Encodable {
        let database: String
        let ok: Bool
        let problems: [String]
        let favorites: Int
        let keyValueEntries: Int
    }

    func run() async throws {
        let session = try global.openSession()
        let report = try session.database.integrityReport()
        if global.json {
            try JSONOutput.print(Output(
                database: session.location.databasePath, ok: report.isOK, problems: report.problems,
                favorites: report.favorites, keyValueEntries: report.keyValueEntries))
        } else {
            print(report.isOK ? "ok" : "problems found:")
            report.problems.forEach { print("  \($0)") }
            print("\(report.favorites) favorites, \(report.keyValueEntries) key-value entries")
        }
        if !report.isOK {
            throw ExitCode.failure
        }
    }
}
