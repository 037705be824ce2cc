import ArchiveCommandLine
import ArgumentParser

/// `archive-server`: the favorites sync service and the catalog, on the embedded SQLite
/// engine. `archive-server [--database PATH] [serve options]` serves (the default);
/// `archive-server users …` and `archive-server devices …` manage its users and their devices.
@main
struct ArchiveServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive-server",
        abstract: "The favorites sync service (and the catalog) for many users, on an embedded SQLite database.",
        discussion: """
            Start it, add a user, and sync a device: \
            archive-server users add alice (prints the token of her first device, once; archive-server devices add alice LABEL for each other), archive-server (serves on 127.0.0.1:8080), \
            then on each device: printf '%s\\n' TOKEN | archive sync --server http://127.0.0.1:8080 --token-stdin. \
            The API: docs/SYNC-API.md.
            """,
        subcommands: [ServeCommand.self, UsersCommand.self, DevicesCommand.self, BackupCommand.self, RestoreCommand.self, RenewFeedsCommand.self],
        defaultSubcommand: ServeCommand.self)

    @OptionGroup var storage: ServerStorageOptions

    /// Runs the command as the other fronts do (``AsyncParsableCommand/terminalSafeMain(shortcut:)``):
    /// a write to standard output that failed fails the command (a token `users add`
    /// printed into a full disk is not a success), and an error's message reaches stderr
    /// with its control characters made visible.
    static func main() async {
        await terminalSafeMain()
    }
}
