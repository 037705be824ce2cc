public import ArchiveStorage
public import Foundation

/// Imports a file of the export format (see ``FavoritesJSONReader``) all or nothing.
///
/// Two passes over the file: the first validates every record and stops at
/// the first bad one (the error names its index and field) before the
/// database is touched; the second stores them all in one transaction.
/// Both stream the file, so memory stays bounded whatever its size.
public struct FavoritesImporter: Sendable {
    /// Where an import is.
    public struct Progress: Sendable, Hashable {
        /// The two passes.
        public enum Phase: String, Sendable, Hashable {
            /// Reading and checking every record.
            case validating
            /// Storing them.
            case importing
        }

        /// The pass.
        public let phase: Phase
        /// Records done in this pass.
        public let records: Int
        /// Bytes of the file read in this pass.
        public let bytesRead: Int
        /// The file's size in bytes.
        public let totalBytes: Int
    }

    /// The file to import.
    public let path: String
    /// The `storedAt` of records that have none.
    public let defaultStoredAt: Date

    /// An importer of the file at `path`.
    public init(path: String, defaultStoredAt: Date = Date()) {
        self.path = path
        self.defaultStoredAt = defaultStoredAt
    }

    /// Reads and validates every record without touching any database; returns their count.
    @discardableResult
    public func validate(progress: (Progress) -> Void = { _ in }) throws -> Int {
        try withReader { reader, totalBytes in
            while try reader.next() != nil {
                if reader.count % 10_000 == 0 {
                    progress(Progress(phase: .validating, records: reader.count, bytesRead: reader.bytesRead, totalBytes: totalBytes))
                }
            }
            progress(Progress(phase: .validating, records: reader.count, bytesRead: reader.bytesRead, totalBytes: totalBytes))
            return reader.count
        }
    }

    /// Validates the whole file, then stores every record into `favorites` in one transaction.
    /// Returns the count stored. On any error nothing was stored.
    @discardableResult
    public func run(into favorites: any StoredArchiveDataRepository, progress: (Progress) -> Void = { _ in }) throws -> Int {
        try validate(progress: progress)
        return try withReader { reader, totalBytes in
            try favorites.create(from: { try reader.next() }) { count in
                progress(Progress(phase: .importing, records: count, bytesRead: reader.bytesRead, totalBytes: totalBytes))
            }
        }
    }

    private func withReader<Result>(_ body: (inout FavoritesJSONReader, Int) throws -> Result) throws -> Result {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FavoritesImportError.cannotRead(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw FavoritesImportError.cannotRead(path: path, reason: "it is a directory")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FavoritesImportError.cannotRead(path: path, reason: "permission denied")
        }
        defer { try? handle.close() }
        let totalBytes = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        var reader = FavoritesJSONReader(handle: handle, defaultStoredAt: defaultStoredAt)
        do {
            return try body(&reader, totalBytes)
        } catch let error as CocoaError {
            throw FavoritesImportError.cannotRead(path: path, reason: error.localizedDescription)
        }
    }
}
