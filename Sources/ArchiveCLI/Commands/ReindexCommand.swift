import ArchiveFront
import ArgumentParser

/// `archive reindex`.
struct ReindexCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "reindex",
        abstract: "Rebuild the favorites search index from the stored favorites.",
        discussion: """
            Every write through `archive` (or the library) keeps the index in step; a favorite \
            another program (the sqlite3 shell) inserted or changed is not in it, and \
            `favorites --search` may miss it until this runs. One transaction: on any error the \
            index stays as it was. The database must exist.
            """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    func run() async throws {
        let session = try openSession(.existingOnly, catalog: .unused)
        let favorites = try session.database.favorites.rebuildSearchIndex()
        if json {
            try JSONOutput.print(OutputShapes.Reindex(database: session.location.databasePath, favorites: favorites))
        } else {
            print("rebuilt the search index: \(favorites) favorite\(favorites == 1 ? "" : "s")")
        }
    }
}
