import ArchiveFront
import ArgumentParser
import Foundation
import SQLite

/// `archive import FILE`.
struct ImportCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store every favorite of a JSON file (the export format), all or nothing.",
        discussion: """
            Every record is validated (beside the storing, on a second thread) before anything \
            is committed; the first bad one is reported with its index and field, and nothing \
            is stored. Records whose ID is already stored update its fields. \
            FILE may be - (standard input) or a pipe: it is read once into a temporary file \
            beside the database, removed afterwards.
            """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Argument(help: "The JSON file, as written by `archive export`, or - for standard input.")
    var file: String

    func run() async throws {
        InterruptCleanup.install()
        let session = try openSession(catalog: .unused)
        let directory = FilePathParts(session.location.databasePath).directory
        let importer = FavoritesImporter(path: file, spoolDirectory: directory)
        var bar = ProgressBar()
        defer { bar.finish() }
        let summary = try importer.run(into: session.database.favorites) { progress in
            let fraction = progress.totalBytes == 0 ? 0 : Double(progress.bytesRead) / Double(progress.totalBytes)
            bar.update(fraction: fraction, label: "\(progress.phase.rawValue) \(progress.records) records")
        }
        bar.finish()
        if json {
            try JSONOutput.print(summary)
        } else {
            let repeats = summary.records - summary.imported
            Terminal.message("imported \(summary.imported) favorites from \(summary.records) records"
                + (repeats > 0 ? " (\(repeats) repeated an earlier record's ID; the last one wins)" : ""))
        }
    }
}
