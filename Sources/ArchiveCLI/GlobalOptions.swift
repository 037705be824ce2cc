import ArchiveFront
import ArgumentParser

/// The options every `archive` command takes: ``ArchiveOptions``' four (their names and help
/// from ``ArchiveOptions/Name`` and ``ArchiveOptions/Help``) plus `--json`. Declared on the root command and on each subcommand, so they may come
/// before or after the subcommand's name.
///
/// The four are declared here again rather than as an `@OptionGroup var archive: ArchiveOptions`:
/// a debug build of ArgumentParser checks a command's declaration at every parse, and each
/// level of groups multiplies that check (every check builds the nested groups' argument sets,
/// which check theirs). One level fewer took a debug `archive favorites` from 70 to 43 ms, and
/// the tests start `archive` about 1,500 times (docs/PERFORMANCE.md, "CI's test phase").
struct GlobalOptions: ParsableArguments {
    @Option(name: ArchiveOptions.Name.database, help: ArchiveOptions.Help.database)
    var database: String?

    @Option(name: ArchiveOptions.Name.apiURL, help: ArchiveOptions.Help.apiURL)
    var apiURL: String?

    @Option(name: ArchiveOptions.Name.timeout, help: ArchiveOptions.Help.timeout)
    var timeout: Double?

    @Option(name: ArchiveOptions.Name.logActions, help: ArchiveOptions.Help.logActions)
    var logActions: String?

    @Flag(name: .long, help: "Print JSON (stable shapes, documented in docs/FORMATS.md).")
    var json = false

    /// The four shared options, as the fronts' code takes them.
    var archive: ArchiveOptions {
        get { ArchiveOptions(database: database, apiURL: apiURL, timeout: timeout, logActions: logActions) }
        set {
            database = newValue.database
            apiURL = newValue.apiURL
            timeout = newValue.timeout
            logActions = newValue.logActions
        }
    }

    /// Refuses what ``ArchiveOptions/validate()`` refuses.
    func validate() throws {
        try ArchiveOptions.validate(database: database, apiURL: apiURL, timeout: timeout, logActions: logActions)
    }

    /// These options over those given before the subcommand.
    func merged(over earlier: GlobalOptions) -> GlobalOptions {
        var merged = self
        merged.archive = archive.merged(over: earlier.archive)
        merged.json = json || earlier.json
        return merged
    }
}
