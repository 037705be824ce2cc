import ArchiveFront
import ArgumentParser

/// `archive sync PATH`: two-way sync with another favorites database.
struct SyncCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync the favorites with another database file, both ways.",
        discussion: """
            Both databases end with the same favorites: for each dish, the latest change \
            (stored or removed, on either side) wins (docs/SYNC.md). PATH is a favorites \
            database another device uses, on a USB stick or in a folder a file-sync tool \
            shares; a missing PATH is created. Each side is written in one transaction: a \
            sync that is interrupted leaves both as they were or as they should be, and \
            running it again completes it. Settings stay per database.
            """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Argument(help: ArgumentHelp("The other favorites database.", valueName: "path"))
    var path: String

    struct Output: Encodable {
        struct Side: Encodable {
            let applied: Int
            let superseded: Int
            let alreadyHeld: Int
            let refused: Int
        }
        let with: String
        let received: Side
        let sent: Side
    }

    func run() async throws {
        try await execute(session: openSession(catalog: .unused))
    }

    @MainActor
    private func execute(session: ArchiveSession) async throws {
        let store = session.makeStore()
        store.dispatch(.sync(.start(path: path)))
        await store.finishEffects()
        let state = store.state.syncState
        if let message = state.errorMessage { throw CLIError("cannot sync with \(path): \(message)") }
        guard let summary = state.lastSummary else { throw CLIError("cannot tell what the sync with \(path) did: the store reported nothing") }
        for (side, what) in [(summary.received, "received from"), (summary.sent, "sent to")] where side.refused > 0 {
            Terminal.message("warning: \(side.refused) change(s) \(what) \(path) refused: \(side.firstRefusal ?? "")")
        }
        if json {
            func side(_ summary: ApplySummary) -> Output.Side {
                Output.Side(applied: summary.applied, superseded: summary.superseded, alreadyHeld: summary.alreadyHeld, refused: summary.refused)
            }
            try JSONOutput.print(Output(with: path, received: side(summary.received), sent: side(summary.sent)))
        } else {
            print("synced with \(TerminalText.visible(path)): received \(summary.received.applied) change(s) (\(summary.received.superseded) superseded), sent \(summary.sent.applied) (\(summary.sent.superseded) superseded)")
        }
    }
}
