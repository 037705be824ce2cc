import ArchiveFront
import ArgumentParser

/// A command that reads a report from the database file without changing it
/// (`check`, `migrations`), prints it as JSON or for a person, and may fail.
protocol ReportCommand: ArchiveSubcommand {
    /// The report: a domain type that encodes its own `--json` shape.
    associatedtype Report: Encodable
    /// Reads the report of the file at a path.
    static var report: (_ path: String) throws -> Report { get }
    /// Prints it for a person.
    static func printHuman(_ report: Report)
    /// Whether the command exits 1 after printing.
    static func isFailure(_ report: Report) -> Bool
}

extension ReportCommand {
    func run() async throws {
        // The action log as every command takes it: opened first, a path that cannot be
        // written refused before anything else (this command dispatches no action to log).
        let location = try location()
        _ = try ArchiveSession.openActionLog(of: location)
        let report = try Self.report(location.databasePath)
        if json {
            try JSONOutput.print(report)
        } else {
            Self.printHuman(report)
        }
        if Self.isFailure(report) {
            throw ExitCode.failure
        }
    }

    static func isFailure(_ report: Report) -> Bool { false }
}
