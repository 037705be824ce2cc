import ArchiveFront
import ArgumentParser

/// The options every `archive` command takes: ``ArchiveOptions`` plus `--json`.
/// Declared on the root command and on each subcommand, so they may come before
/// or after the subcommand's name.
struct GlobalOptions: ParsableArguments {
    @OptionGroup var archive: ArchiveOptions

    @Flag(name: .long, help: "Print JSON (stable shapes, documented in docs/FORMATS.md).")
    var json = false

    /// These options over those given before the subcommand.
    func merged(over earlier: GlobalOptions) -> GlobalOptions {
        var merged = self
        merged.archive = archive.merged(over: earlier.archive)
        merged.json = json || earlier.json
        return merged
    }
}
