import ArchiveFront
import ArgumentParser

/// `archive`: the command-line front of FavoriteArchive (``ArchiveMain`` runs it).
struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Search the dish archive and keep favorites in an embedded SQLite database.",
        discussion: """
            Every search, store, removal and flag goes through the app's Redux store, as in the \
            original app. The catalog is bundled unless --api-url (or ARCHIVE_API_URL) names a \
            json-server-style endpoint (archive-server serves one). Exit codes: 0 success, 1 failure, 64 usage error.
            """,
        subcommands: [
            SearchCommand.self, CategoriesCommand.self, StorageCommand<AddOperation>.self, StorageCommand<RemoveOperation>.self,
            FavoritesCommand.self, ExportCommand.self, ImportCommand.self, OnboardingCommand.self, SettingsCommand.self,
            MigrationsCommand.self, CheckCommand.self, ReindexCommand.self, SyncCommand.self, MovedServeCommand.self,
        ]
    )

    /// The shared options given before the subcommand (`archive --database X search`).
    @OptionGroup var global: GlobalOptions
}
