import ArchiveFront

/// The entry point of `archive`: ``ArchiveCommand`` on the main actor, the main
/// thread serving the main queue (``MainThreadRunLoop``) instead of an async `main`.
@main
enum ArchiveMain {
    /// Runs the command; an error's message reaches stderr with its control characters made visible.
    /// `search`, `add` and `remove` command lines that ``CommandLineShortcut`` recognizes skip ArgumentParser's parse.
    static func main() {
        MainThreadRunLoop.run {
            await ArchiveCommand.terminalSafeMain(shortcut: ArchiveCommand.shortcut(for:))
        }
    }
}
