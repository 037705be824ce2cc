import ArchiveFront
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `archive import FILE`.
struct ImportCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store every favorite of a JSON file (the export format), all or nothing.",
        discussion: """
            Every record is validated as it is stored, in one transaction: the first bad one is \
            reported with its index and field, and nothing is stored. Records whose ID is \
            already stored update its texts and keep its storedAt (its place in the list; import \
            into a new database to take every date from the file). A database that does not exist yet is built \
            beside its path and put in place whole (faster: no write-ahead log to copy). \
            FILE may be - (standard input) or a pipe: it is read once into a temporary file \
            beside the database, removed afterwards.
            """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Argument(help: "The JSON file, as written by `archive export`, or - for standard input.")
    var file: String

    func run() async throws {
        InterruptCleanup.install()
        let location = try location()
        let path = location.databasePath
        var bar = ProgressBar()
        defer { bar.finish() }
        func run(into favorites: any StoredArchiveDataRepository) throws -> FavoritesImporter.Summary {
            let importer = FavoritesImporter(path: file, spoolDirectory: location.databaseDirectory)
            return try importer.run(into: favorites) { progress in
                let fraction = progress.totalBytes == 0 ? 0 : Double(progress.bytesRead) / Double(progress.totalBytes)
                bar.update(fraction: fraction, label: "\(progress.phase.rawValue) \(progress.records) records")
            }
        }
        // Into the database opened in place, as every command opens it.
        func runInPlace() throws -> FavoritesImporter.Summary {
            try run(into: ArchiveSession(location: location, catalog: .unused).database.favorites)
        }
        let summary: FavoritesImporter.Summary
        var entry = stat()
        // A file or a link (SQLite follows it) is opened as every command opens it, and so is `:memory:`.
        if path == ArchiveDatabase.inMemoryPath || lstat(path, &entry) == 0 {
            summary = try runInPlace()
        } else {
            _ = try ArchiveSession.openActionLog(of: location)  // checked as every command does; an import logs no action
            try ArchiveSession.prepareDatabasePath(path, for: .createIfMissing)
            summary = try NewDatabaseFile(creating: path).build({ database in try run(into: database.favorites) }, withoutHardLinks: runInPlace)
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
