public import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The options of a front that syncs with a service (`archive sync`, `archive-tui`): which
/// certificate authorities to trust, whether plain `http` may carry the token, and the
/// refusal of a token in the arguments. Declared once so that both fronts take them alike.
public struct SyncServiceOptions: ParsableArguments, Sendable {
    /// `--ca-file PEM`: the certificate authorities trusted for the service's certificate.
    @Option(name: .customLong("ca-file"), help: ArgumentHelp(
        "Trust the certificate authorities in this PEM file for the sync service's certificate, instead of the system's "
            + "(else ARCHIVE_SYNC_CA_FILE, else the one a sync with --server --ca-file kept).",
        valueName: "pem"))
    public var caFile: String?

    /// `--allow-insecure-http`: the token may go over plain `http` to another machine.
    @Flag(name: .customLong("allow-insecure-http"), help: "Send the token over plain http to a sync service on another machine (only on a network you trust).")
    public var allowInsecureHTTP = false

    /// Refused (``validate()``): a token in the arguments is in the process list, which every
    /// local user reads. Kept as an option, out of `--help`, only to say so.
    @Option(help: ArgumentHelp(visibility: .hidden))
    public var token: String?

    /// No options given.
    public init() {}

    /// Refuses `--token`, saying where a token goes instead.
    public func validate() throws {
        if token != nil {
            throw ValidationError("""
                --token is refused: other local users read a command's arguments in the process list. Give the token \
                on standard input once (printf '%s\\n' TOKEN | archive sync --server URL --token-stdin; it is kept in \
                DATABASE.sync-token, mode 600, for every later sync, archive-tui's included), or in ARCHIVE_SYNC_TOKEN
                """)
        }
    }

    /// Whether any of these options was given (they go with a service, never with a file).
    public var anyGiven: Bool { caFile != nil || allowInsecureHTTP }

    /// `session` with these options: a `--ca-file` outranks `ARCHIVE_SYNC_CA_FILE` and the
    /// kept one. A relative path is made absolute now, so that a kept CA file names the same
    /// file from any directory.
    public func apply(to session: inout ArchiveSession) {
        if let absoluteCAFile { session.syncCAFile = absoluteCAFile }
        session.syncAllowsInsecureHTTP = allowInsecureHTTP
    }

    /// `--ca-file`'s path made absolute against the current directory, as it is kept.
    public var absoluteCAFile: String? {
        guard let caFile, !caFile.hasPrefix("/"), !caFile.isEmpty else { return caFile }
        return FileManager.default.currentDirectoryPath + "/" + caFile
    }
}
