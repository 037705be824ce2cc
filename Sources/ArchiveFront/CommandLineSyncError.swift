public import ArchiveSyncClient

/// A failed sync with a service in the fronts' words: the client's error
/// (``SyncTransportError``, which names no option) and what the fronts' own options,
/// variables and files change about it (`--timeout`, `--ca-file`, `ARCHIVE_SYNC_TOKEN`, …),
/// and, for a refused token, the advice that does no harm to the user's other devices.
public struct CommandLineSyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the client met.
    public let underlying: SyncTransportError

    /// `underlying` in the fronts' words.
    public init(_ underlying: SyncTransportError) {
        self.underlying = underlying
    }

    /// What failed, and what to do with the fronts' options.
    public var description: String {
        switch underlying {
        case .unauthorized(let server):
            "\(server) refused the token (401): check the token (--token-stdin, ARCHIVE_SYNC_TOKEN or the token file); a device without a token of its own gets one from `archive-server devices add USER LABEL` (not `users token`, which signs out every device of the user)"
        case .timedOut(let server, let seconds):
            "\(server) did not answer within \(SyncTransportError.seconds(seconds)) (a whole request, its answer included; --timeout sets it); nothing more was synced: try again, or give a longer --timeout"
        case .insecure(let server):
            "refusing to send the token to \(server) over plain http, which anyone on the network can read: use https:// (archive-server --tls-certificate), or --allow-insecure-http on a network you trust; nothing was synced"
        case .unreadableCAFile(let path, let reason):
            "cannot read the certificate authorities in \(path) (--ca-file, ARCHIVE_SYNC_CA_FILE or the syncCAFile setting): \(reason); give a PEM file of CA certificates; nothing was synced"
        case .tooManyChanges(let server, let limit, let applied):
            "\(server) has more than \(limit) changes for this sync (--max-changes): the first \(applied) were applied and are kept; sync again to take the next ones, or give a larger --max-changes"
        case .unreachable, .tooLarge, .refused, .badAnswer, .untrusted:
            underlying.description
        }
    }

    /// Runs `body`, its ``SyncTransportError`` said in the fronts' words.
    static func speaking<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as SyncTransportError {
            throw CommandLineSyncError(error)
        }
    }
}
