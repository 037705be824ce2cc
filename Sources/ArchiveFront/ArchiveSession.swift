#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ArchiveHTTP
import ArchiveSyncWire

/// What a front opens at launch: the database and the catalog of an
/// ``ArchiveLocation``, and the environment the store runs on.
public struct ArchiveSession: Sendable {
    /// How a command uses the database file.
    public enum DatabaseAccess: Sendable, Hashable {
        /// Open it, creating the file and its directory when missing (commands that write).
        case createIfMissing
        /// Open it only if it exists: a command that only reads never creates a database.
        case existingOnly
    }

    /// Whether a command talks to the catalog.
    public enum CatalogUse: Sendable, Hashable {
        /// It does: the catalog URL is checked now.
        case needed
        /// It does not: a bad catalog URL does not stop it (the bundled catalog stands in).
        case unused
    }

    /// Where it was opened from.
    public let location: ArchiveLocation
    /// The open database.
    public let database: ArchiveDatabase
    /// The catalog: bundled, or HTTP when the location names a URL and the command needs it.
    public let api: any RequestArchiveRepository
    /// The action log, when the location names one.
    public let actionLog: ActionLogFile?
    /// The token a sync with a service sends, when given on the command line (else
    /// ``SyncToken`` finds it when the sync starts).
    public var syncToken: String?
    /// Told how far a sync with a service has come (a front's progress bar); `nil`: nobody listens.
    public var syncProgress: (@Sendable (SyncProgress) -> Void)?
    /// The most changes one sync with a service takes (`archive sync --max-changes`).
    public var syncMaximumChanges = SyncAPI.defaultMaximumChangesPerSync
    /// The certificate authorities a service's certificate is checked against instead of the
    /// system's: `--ca-file`, else ``syncCAFileVariable``; when neither names one, the CA file
    /// kept with the service (``trustedCAFile(for:)``).
    public var syncCAFile: String? = ArchiveSession.environmentCAFile
    /// Whether a token may go to a service over plain `http` on another machine
    /// (`archive sync --allow-insecure-http`).
    public var syncAllowsInsecureHTTP = false

    /// The variable that may name the certificate authorities to trust.
    public static let syncCAFileVariable = "ARCHIVE_SYNC_CA_FILE"

    private static var environmentCAFile: String? {
        guard let value = getenv(syncCAFileVariable), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// Opens the database and, when `catalog` is `.needed`, the catalog.
    ///
    /// Errors say which file or URL failed and why; a refused file is left unchanged,
    /// and nothing is created for `.existingOnly`.
    ///
    /// A log named by the location is opened first: one that cannot be written is
    /// an error before anything else is opened or created. `actionLogFailure`
    /// hears if it stops later (by default, a line on stderr).
    public init(
        location: ArchiveLocation, database access: DatabaseAccess = .createIfMissing, catalog: CatalogUse = .needed,
        actionLogFailure: @escaping @Sendable (String) -> Void = ArchiveSession.warnOnStandardError
    ) throws {
        self.location = location
        self.actionLog = try Self.openActionLog(of: location, onFailure: actionLogFailure)
        switch catalog {
        case .needed: self.api = try Self.catalog(at: location)
        case .unused: self.api = BundledArchiveRepository()
        }
        let path = location.databasePath
        try Self.prepareDatabasePath(path, for: access)
        self.database = try ArchiveDatabase(path: path)
    }

    /// Opens the action log `location` names, if any (an error when it cannot be written).
    public static func openActionLog(
        of location: ArchiveLocation, onFailure: @escaping @Sendable (String) -> Void = ArchiveSession.warnOnStandardError
    ) throws -> ActionLogFile? {
        try location.actionLogPath.map { path throws(ActionLogError) in
            try ActionLogFile(path: path, databasePath: location.databasePath, onFailure: onFailure)
        }
    }

    /// Checks that `path` can hold a database and, as `access` says, that it exists
    /// (`.existingOnly`) or that its directory does, creating it (`.createIfMissing`).
    public static func prepareDatabasePath(_ path: String, for access: DatabaseAccess) throws {
        // What the path names (a directory, a FIFO, `dir/`…) is refused before whether it exists is asked.
        try ArchiveDatabase.checkDatabasePath(path)
        switch access {
        case .existingOnly:
            guard FileManager.default.fileExists(atPath: path) else { throw ArchiveStorageError.noDatabase(path: path) }
        case .createIfMissing:
            let directory = ArchiveLocation.directory(containing: path)
            if !FileManager.default.fileExists(atPath: directory) {
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    throw ArchiveSessionError.cannotCreateDirectory(path: directory, reason: Self.systemReason(error))
                }
            }
        }
    }

    /// What the system said about a failed file operation (strerror: "Permission
    /// denied"), else the error itself.
    static func systemReason(_ error: any Error) -> String {
        if let error = error as? CocoaError, let underlying = error.underlying as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue))
        }
        return "\(error)"
    }

    /// Writes `warning: MESSAGE` on stderr, control characters made visible.
    public static let warnOnStandardError: @Sendable (String) -> Void = { message in
        TerminalText.writeLineToStandardError("warning: " + message)
    }

    /// The catalog of `location`: HTTP when it names a URL (checked now), else the bundled one.
    public static func catalog(at location: ArchiveLocation) throws -> any RequestArchiveRepository {
        try location.apiURL.map { try HTTPArchiveRepository(baseURL: $0, timeout: location.apiTimeout) }
            ?? BundledArchiveRepository()
    }

    /// The environment for a store on this session.
    public var environment: ArchiveEnvironment {
        let database = database, maximumChanges = syncMaximumChanges, progress = syncProgress
        let transport = syncTransport
        return ArchiveEnvironment(database: database, api: api, syncServer: { url in
            try await CommandLineSyncError.speaking {
                try await ServerSyncSession.run(database, through: try transport(url), maximumChanges: maximumChanges, progress: progress)
            }
        })
    }

    /// Asks the sync service at `server` whether it accepts this device's token (a pull of no
    /// changes: nothing synced, nothing registered); throws what refused it.
    public func checkSyncToken(server: String) async throws {
        let transport = syncTransport, device = try database.favorites.deviceID()
        _ = try await CommandLineSyncError.speaking { try await transport(server).pull(device: device, cursor: 0, limit: 0) }
    }

    /// Listens to the event stream of the sync service at `server` with this session's token,
    /// calling `moved` each time another device's push lands, until the service ends the
    /// stream (listen again) or it fails (``HTTPSyncTransport/listenForFeedMoves(_:)``).
    public func listenForFeedMoves(server: String, _ moved: @escaping @Sendable () -> Void) async throws {
        let transport = syncTransport
        try await CommandLineSyncError.speaking { try await transport(server).listenForFeedMoves(moved) }
    }

    /// The CA file a sync with `server` trusts: ``syncCAFile`` (`--ca-file`, else the
    /// variable), else the one kept with `server` by `archive sync --server URL --ca-file PEM`
    /// (the `syncCAFile` setting, only while `server` is the kept `syncServer`), else none:
    /// the system's authorities.
    public func trustedCAFile(for server: String) throws -> String? {
        try syncCAFile ?? database.settings.keptSyncCAFile(for: server)
    }

    /// Makes the transport to the sync service at a URL, with this session's token
    /// (``syncToken``, else ``SyncToken/resolve(explicit:databasePath:)``), timeout and trust.
    var syncTransport: @Sendable (String) throws -> HTTPSyncTransport {
        let explicitToken = syncToken, databasePath = location.databasePath, timeout = location.syncTimeout
        let session = self, allowsInsecureHTTP = syncAllowsInsecureHTTP
        return { url in
            let token = try SyncToken.resolve(explicit: explicitToken, databasePath: databasePath)
            let caFile = try session.trustedCAFile(for: url)
            return try HTTPSyncTransport(server: url, token: token, timeout: timeout, caFile: caFile, allowsInsecureHTTP: allowsInsecureHTTP)
        }
    }

    /// A new store on this session, its effects preferring `effectExecutor` if given.
    @MainActor
    public func makeStore(effectExecutor: (any TaskExecutor)? = nil) -> AppStore {
        AppStore(environment: environment, actionLog: actionLog, effectExecutor: effectExecutor)
    }
}

/// Why a session could not be opened, beyond the database's own errors.
public enum ArchiveSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database's directory is missing and cannot be created.
    case cannotCreateDirectory(path: String, reason: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .cannotCreateDirectory(let path, let reason):
            return "cannot create the database directory \(path): \(reason); pass --database with a writable path"
        }
    }
}
