public import ArchiveAPI
public import ArchiveStorage
import Foundation

/// What a front opens at launch: the database and the catalog of an
/// ``ArchiveLocation``, and the environment the store runs on.
public struct ArchiveSession: Sendable {
    /// Where it was opened from.
    public let location: ArchiveLocation
    /// The open database.
    public let database: ArchiveDatabase
    /// The catalog: bundled, or HTTP when the location names a URL.
    public let api: any RequestArchiveRepository

    /// Opens the database (creating its directory and file when missing) and the catalog.
    ///
    /// Errors say which file or URL failed and why; a refused file is left unchanged.
    public init(location: ArchiveLocation, apiTimeout: Duration = .seconds(10)) throws {
        self.location = location
        self.api = try location.apiURL.map { try HTTPArchiveRepository(baseURL: $0, timeout: apiTimeout) }
            ?? BundledArchiveRepository()
        let directory = (location.databasePath as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw ArchiveSessionError.cannotCreateDirectory(path: directory, reason: error.localizedDescription)
            }
        }
        self.database = try ArchiveDatabase(path: location.databasePath)
    }

    /// The environment for a store on this session.
    public var environment: ArchiveEnvironment {
        ArchiveEnvironment(database: database, api: api)
    }

    /// A new store on this session.
    @MainActor
    public func makeStore() -> AppStore {
        AppStore(environment: environment)
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
