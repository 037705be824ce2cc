import ArchiveFront
import ArgumentParser

/// `archive export [--output FILE]`.
struct ExportCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every favorite as JSON (the import format), newest first.",
        discussion: """
            Without --output, or with -o - or -o /dev/stdout, the JSON goes to stdout. A file is \
            written whole or not at all (a symbolic link's target is replaced); the database's own \
            files are refused.
            """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of stdout (- for stdout).", valueName: "file"))
    var output: String?

    func run() async throws {
        InterruptCleanup.install()
        FreedMemoryReuse.enable()
        let session = try openSession(.existingOnly, catalog: .unused)
        let destination = try ExportDestination.resolve(output, protecting: session.location.databasePath)
        let favorites = session.database.favorites
        let total = try favorites.count()
        var bar = ProgressBar()
        defer { bar.finish() }
        let count = try destination.write { handle in
            try FavoritesExporter.export(favorites, to: handle) { count in
                bar.update(fraction: total == 0 ? 1 : Double(count) / Double(total), label: "exported \(count) of \(total)")
            }
        }
        bar.finish()
        switch destination {
        case .standardOutput: Terminal.message("exported \(count) favorites")
        case .file(let path), .stream(let path): Terminal.message("exported \(count) favorites to \(path)")
        }
    }
}
