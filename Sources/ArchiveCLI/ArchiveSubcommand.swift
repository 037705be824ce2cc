import ArchiveFront
import ArgumentParser

/// A subcommand of `archive`: its own options merged with those given before its name.
protocol ArchiveSubcommand: AsyncParsableCommand {
    /// The options given after the subcommand's name.
    var global: GlobalOptions { get }
    /// The root command, holding the options given before the subcommand's name.
    var root: ArchiveCommand { get }
}

extension ArchiveSubcommand {
    /// The shared options, wherever they were given.
    var options: GlobalOptions { global.merged(over: root.global) }

    /// Whether to print JSON.
    var json: Bool { options.json }

    /// The shared options as plain values, as the requests run with them.
    var commandOptions: CommandOptions { CommandOptions(options) }

    /// Where the database and catalog are.
    func location() throws -> ArchiveLocation {
        try commandOptions.location()
    }

    /// Opens the database (as `access` says) and, when `catalog` is `.needed`, the catalog.
    func openSession(_ access: ArchiveSession.DatabaseAccess = .createIfMissing, catalog: ArchiveSession.CatalogUse) throws -> ArchiveSession {
        try commandOptions.openSession(access, catalog: catalog)
    }
}
