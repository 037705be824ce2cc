import ArgumentParser

/// `archive-server`: the favorites sync service and the catalog, on the embedded SQLite
/// engine. `archive-server [--database PATH] [serve options]` serves (the default);
/// `archive-server users add|list|token|revoke|remove` manages its users.
@main
struct ArchiveServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive-server",
        abstract: "The favorites sync service (and the catalog) for many users, on an embedded SQLite database.",
        discussion: """
            Start it, add a user, and sync a device: \
            archive-server users add alice (prints alice's token once), archive-server (serves on 127.0.0.1:8080), \
            then on each device: archive sync --server http://127.0.0.1:8080 --token <token>. \
            The API: docs/SYNC-API.md.
            """,
        subcommands: [ServeCommand.self, UsersCommand.self],
        defaultSubcommand: ServeCommand.self)

    @OptionGroup var storage: ServerStorageOptions
}
