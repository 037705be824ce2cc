import ArchiveFront
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `archive sync PATH` or `archive sync --server URL`: two-way sync with another favorites
/// database, or with a sync service (`archive-server`).
struct SyncCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync the favorites with another database file, or a sync service, both ways.",
        discussion: """
            Both databases end with the same favorites: for each dish, the latest change \
            (stored or removed, on either side) wins (docs/SYNC.md). PATH is a favorites \
            database another device uses, on a USB stick or in a folder a file-sync tool \
            shares; a missing PATH is created. Each side is written in one transaction: a \
            sync that is interrupted leaves both as they were or as they should be, and \
            running it again completes it. Settings stay per database. \
            With --server URL (or, with neither, the syncServer setting), the favorites sync \
            through an archive-server instead, with the \
            token from DATABASE.sync-token (mode 600), ARCHIVE_SYNC_TOKEN or --token-stdin \
            (never from --token: other local users read arguments in the process list); \
            offline or refused, it says so and leaves the favorites as they were. \
            Each request to the service may take --timeout seconds in all (default 30), \
            its answer included; one sync takes at most --max-changes changes from the \
            service (what it applied is kept, and the next sync goes on from there). \
            A sync with --server keeps that server (the syncServer setting), the CA file \
            given with --ca-file for it (the syncCAFile setting), and a token \
            given with --token-stdin in DATABASE.sync-token (mode 600): then \
            `archive sync` alone (and archive-tui) syncs with them. --status says the kept \
            server, the CA file trusted for it, the last sync, how many local changes wait, \
            and whether the service accepts the token.
            """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Argument(help: ArgumentHelp("The other favorites database.", valueName: "path"))
    var path: String?

    @Option(help: ArgumentHelp("Sync through this archive-server instead (http(s)://HOST:PORT).", valueName: "url"))
    var server: String?

    @Flag(help: "Read the service's token from the first line of standard input.")
    var tokenStdin = false

    @OptionGroup var service: SyncServiceOptions

    @Option(help: ArgumentHelp("The most changes this sync takes from the service.", valueName: "count"))
    var maxChanges = SyncAPI.defaultMaximumChangesPerSync

    @Flag(help: "Say where sync stands (server, last sync, changes waiting, the token) instead of syncing.")
    var status = false

    func validate() throws {
        if path != nil, server != nil { throw ValidationError("give either a PATH or --server, not both") }
        if path != nil, tokenStdin { throw ValidationError("--token-stdin goes with a server (--server, or the syncServer setting)") }
        if path != nil, service.anyGiven { throw ValidationError("--ca-file and --allow-insecure-http go with a server (--server, or the syncServer setting)") }
        if status, path != nil { throw ValidationError("--status tells about the sync service: give no PATH") }
        guard maxChanges > 0 else { throw ValidationError("--max-changes must be at least 1, got \(maxChanges)") }
    }

    /// What this sync meets: PATH, `--server`, or the `syncServer` setting.
    private func peer(in session: ArchiveSession) throws -> SyncPeer {
        if let path { return .file(path: path) }
        if let server { return .server(url: server) }
        guard case .string(let url)? = try session.database.settings.entry(.syncServer).value, !url.isEmpty else {
            // A usage error (64): nothing names what to sync with.
            throw ValidationError("give the other database's PATH, or --server URL (kept for the next sync)")
        }
        return .server(url: url)
    }

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
        var session = try openSession(catalog: .unused)
        session.syncToken = try tokenStdin ? SyncToken.fromStandardInput() : nil
        session.syncMaximumChanges = maxChanges
        service.apply(to: &session)
        if status { return try await printStatus(session: session) }
        let bar = SyncProgressBar()
        if !json, Terminal.stderrIsTTY { session.syncProgress = { bar.report($0) } }
        defer { bar.finish() }
        try await execute(session: session, peer: peer(in: session))
    }

    /// What `--status` prints with `--json`.
    struct StatusOutput: Encodable {
        /// The kept (or given) server, `nil` when none.
        let server: String?
        /// The CA file trusted for the server's certificate, `nil` for the system's authorities.
        let caFile: String?
        /// When the last sync finished (ISO 8601), `nil` when never.
        let lastSync: String?
        /// The local changes the next sync sends.
        let waiting: Int
        /// `accepted`, `refused`, `anotherDevice`, `missing`, `unchecked` (no server) or `unreachable`.
        let token: String
        /// Why the token is not `accepted`, in words.
        let reason: String?
    }

    /// `--status`: the server, the last sync, the changes waiting, and whether the service
    /// accepts the token (one pull of no changes; nothing synced).
    private func printStatus(session: ArchiveSession) async throws {
        let database = session.database
        let known = try database.syncStatus()
        var server = self.server
        if server == nil, case .string(let kept)? = try database.settings.entry(.syncServer).value, !kept.isEmpty { server = kept }
        var token = "unchecked", reason: String? = "no server kept: archive sync --server URL keeps one"
        if let server {
            do {
                try await session.checkSyncToken(server: server)
                (token, reason) = ("accepted", nil)
            } catch let error as SyncTokenError {
                (token, reason) = ("missing", error.description)
            } catch let error as CommandLineSyncError {
                switch error.underlying {
                case .unauthorized: (token, reason) = ("refused", error.description)
                case .refused(_, 403, let message): (token, reason) = ("anotherDevice", message)
                default: (token, reason) = ("unreachable", error.description)
                }
            } catch {
                (token, reason) = ("unreachable", "\(error)")
            }
        }
        let lastSync = known.lastSync.map { $0.formatted(.iso8601) }
        let caFile = try server.flatMap(session.trustedCAFile(for:))
        if json {
            try JSONOutput.print(StatusOutput(server: server, caFile: caFile, lastSync: lastSync, waiting: known.waiting, token: token, reason: reason))
            return
        }
        print("server: \(server.map(TerminalText.visible) ?? "none")")
        print("ca file: \(caFile.map(TerminalText.visible) ?? "none (the system's trusted authorities)")")
        print("last sync: \(lastSync ?? "never")")
        print("waiting: \(known.waiting) local change(s)")
        print("token: \(token)\(reason.map { " (\(TerminalText.visible($0)))" } ?? "")")
    }

    @MainActor
    private func execute(session: ArchiveSession, peer: SyncPeer) async throws {
        let store = session.makeStore()
        store.dispatch(.sync(.start(peer)))
        await store.finishEffects()
        let state = store.state.syncState
        if let message = state.errorMessage { throw CLIError("cannot sync with \(peer): \(message)") }
        guard let summary = state.lastSummary else { throw CLIError("cannot tell what the sync with \(peer) did: the store reported nothing") }
        // Kept once the service took them: `archive sync` alone meets the same service next time.
        if let server {
            do {
                try session.database.settings.keepSyncServer(server, caFile: service.absoluteCAFile)
                if let token = session.syncToken { try SyncToken.keep(token, databasePath: session.location.databasePath) }
            } catch {
                throw CLIError("synced with \(peer), but could not keep the server and token for the next sync: \(error)")
            }
        }
        for (side, what) in [(summary.received, "received from"), (summary.sent, "sent to")] where side.refused > 0 {
            Terminal.message("warning: \(side.refused) change(s) \(what) \(peer) refused: \(side.firstRefusal ?? "")")
        }
        if json {
            func side(_ summary: ApplySummary) -> Output.Side {
                Output.Side(applied: summary.applied, superseded: summary.superseded, alreadyHeld: summary.alreadyHeld, refused: summary.refused)
            }
            try JSONOutput.print(Output(with: peer.description, received: side(summary.received), sent: side(summary.sent)))
        } else {
            print("synced with \(TerminalText.visible(peer.description)): received \(summary.received.applied) change(s) (\(summary.received.superseded) superseded), sent \(summary.sent.applied) (\(summary.sent.superseded) superseded)")
        }
    }
}
