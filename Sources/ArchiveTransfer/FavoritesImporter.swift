public import ArchiveStorage
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import SQLite
#if canImport(Glibc)
import Glibc
#endif
import ArchiveSyncModel

/// Imports a file of the export format (see ``FavoritesJSONReader``) all or nothing.
///
/// One pass stores the records in one transaction as it reads and checks them;
/// the first bad record (the error names its index and field) rolls everything
/// back. Repeated IDs are counted on the way (``DuplicateIDCounter``): exactly for
/// IDs below a bound that grows with the file (an archive numbered from 1 has no
/// other), and, when a larger ID may repeat, by a second reading of the file that
/// counts only those before the commit. The file is streamed, so memory stays
/// bounded whatever its size.
///
/// Input that cannot be read twice (standard input as `-`, a pipe, `<(…)`, a
/// character device) is first copied once into a temporary file in
/// `spoolDirectory`, its records checked as they pass (a bad one stops the copy),
/// and the copy is removed afterwards whatever happens.
public struct FavoritesImporter: Sendable {
    /// Where an import is.
    public struct Progress: Sendable, Hashable {
        /// The passes.
        public enum Phase: String, Sendable, Hashable {
            /// Copying input that cannot be read twice.
            case reading
            /// Reading and checking every record (``FavoritesImporter/validate(progress:)``),
            /// or counting the IDs that may repeat, once every record is stored.
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
        /// The file's size in bytes (0 while unknown).
        public let totalBytes: Int
    }

    /// What an import did.
    public struct Summary: Sendable, Hashable, Encodable {
        /// Records read from the file.
        public let records: Int
        /// Favorites written: records less those that repeat an ID of an earlier record.
        public let imported: Int
    }

    /// The file to import, or `-` for standard input.
    public let path: String
    /// The `storedAt` of records that have none.
    public let defaultStoredAt: Date
    /// Where input that cannot be read twice is copied to.
    public let spoolDirectory: String

    /// An importer of the file at `path` (`-` for standard input).
    public init(path: String, defaultStoredAt: Date = Date(), spoolDirectory: String = FileManager.default.temporaryDirectory.path) {
        self.path = path
        self.defaultStoredAt = defaultStoredAt
        self.spoolDirectory = spoolDirectory
    }

    /// Reads and validates every record without touching any database; returns their count.
    @discardableResult
    public func validate(progress: (Progress) -> Void = { _ in }) throws -> Int {
        try withSource(progress: progress) { source in
            try withReader(source) { reader in
                while try reader.next() != nil {
                    if reader.count % 10_000 == 0 {
                        progress(Progress(phase: .validating, records: reader.count, bytesRead: reader.bytesRead, totalBytes: source.size))
                    }
                }
                progress(Progress(phase: .validating, records: reader.count, bytesRead: reader.bytesRead, totalBytes: source.size))
                return reader.count
            }
        }
    }

    /// Stores every record of the file into `favorites` in one transaction: all or
    /// nothing. Each record is checked as it is read; the first bad one, or any other
    /// error, rolls the transaction back. `progress` is called on this thread.
    @discardableResult
    public func run(into favorites: any StoredArchiveDataRepository, progress: (Progress) -> Void = { _ in }) throws -> Summary {
        try withSource(progress: progress) { source in
            // A record with every field empty takes about 110 bytes ({"id":1,"photoUrl":"", … ,
            // "storedAt":"…Z"}): a file holds at most about size / 110 of them.
            var duplicates = DuplicateIDCounter(expectedRecords: source.size / Self.smallestRecordBytes)
            let records = try withReader(source) { reader in
                try favorites.create(from: {
                    if let object = try reader.next() {
                        duplicates.note(object.id)
                        return object
                    }
                    // The end of the file, before the commit: a large ID may repeat.
                    if duplicates.hasCandidates {
                        try countCandidates(source, duplicates: &duplicates, progress: progress)
                    }
                    return nil
                }) { count in
                    progress(Progress(phase: .importing, records: count, bytesRead: reader.bytesRead, totalBytes: source.size))
                }
            }
            return Summary(records: records, imported: records - duplicates.repeats)
        }
    }

    /// About the fewest bytes a record takes in an import file (every text empty).
    static let smallestRecordBytes = 110

    /// The second reading of the file, when the first noted large IDs that may
    /// repeat: counts how often each of them occurs.
    private func countCandidates(_ source: Source, duplicates: inout DuplicateIDCounter, progress: (Progress) -> Void) throws {
        try withReader(source) { reader in
            while let object = try reader.next() {
                duplicates.count(object.id)
                if reader.count % 10_000 == 0 {
                    progress(Progress(phase: .validating, records: reader.count, bytesRead: reader.bytesRead, totalBytes: source.size))
                }
            }
        }
    }

    // MARK: - Input

    /// A file that can be read twice.
    private struct Source {
        let path: String
        let size: Int
    }

    private func withReader<Result>(_ source: Source, _ body: (inout FavoritesJSONReader) throws -> Result) throws -> Result {
        guard let handle = FileDescriptorHandle(forReadingAtPath: source.path) else {
            throw FavoritesImportError.cannotRead(path: path, reason: String(cString: strerror(errno)))
        }
        var reader = FavoritesJSONReader(handle: handle, defaultStoredAt: defaultStoredAt)
        do {
            return try body(&reader)
        } catch let error as JSONByteReader.ReadFailed {
            throw FavoritesImportError.cannotRead(path: path, reason: error.reason)
        }
    }

    /// The input as a file that can be read twice: the file itself when it is a
    /// regular file, else a spooled copy (removed when `body` returns or throws).
    private func withSource<Result>(progress: (Progress) -> Void, _ body: (Source) throws -> Result) throws -> Result {
        if path != "-" {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw FavoritesImportError.cannotRead(path: path, reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                return try body(Source(path: path, size: Int(info.st_size)))
            case S_IFDIR:
                throw FavoritesImportError.cannotRead(path: path, reason: "it is a directory")
            default:
                break  // a pipe, a FIFO, a character device: read it once, into a spool file
            }
        }
        let spool = try spool(progress: progress)
        defer {
            unlink(spool.path)
            PartialFiles.shared.unregister(spool.path)
        }
        return try body(spool)
    }

    /// Copies the whole input into a new temporary file in ``spoolDirectory``,
    /// checking every record as its bytes pass: input that is not the format
    /// (`/dev/zero`, a stream of garbage that never ends) is refused at its first
    /// bad byte, where a plain copy would wait for an end that may never come and
    /// fill the disk meanwhile. A valid stream that never ends still fills the disk,
    /// and is then refused by the failed write. On any error the copy is removed.
    private func spool(progress: (Progress) -> Void) throws -> Source {
        let input: FileDescriptorHandle
        if path == "-" {
            input = .standardInput
        } else {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw FavoritesImportError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
            input = FileDescriptorHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        }
        let spoolPath = FilePathParts.joining(spoolDirectory, ".import-spool-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let descriptor = PartialFiles.shared.create(spoolPath, flags: O_RDWR | O_CLOEXEC, mode: 0o600)
        guard descriptor >= 0 else {
            throw FavoritesImportError.cannotRead(path: path, reason: "cannot spool it to \(spoolDirectory): \(String(cString: strerror(errno)))")
        }
        let output = FileDescriptorHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            var reader = FavoritesJSONReader(handle: input, defaultStoredAt: defaultStoredAt, copyingTo: output)
            while try reader.next() != nil {
                if reader.count % 10_000 == 0 {
                    progress(Progress(phase: .reading, records: reader.count, bytesRead: reader.bytesRead, totalBytes: 0))
                }
            }
            // The reader has read up to the end of the input (nothing but whitespace
            // may follow the array), so the copy holds every byte of it.
            progress(Progress(phase: .reading, records: reader.count, bytesRead: reader.bytesRead, totalBytes: 0))
            return Source(path: spoolPath, size: reader.bytesRead)
        } catch {
            unlink(spoolPath)
            PartialFiles.shared.unregister(spoolPath)
            switch error {
            case let error as FavoritesImportError:
                throw error
            case let error as JSONByteReader.ReadFailed:
                throw FavoritesImportError.cannotRead(path: path, reason: error.reason)
            case let error as JSONByteReader.CopyFailed:
                throw FavoritesImportError.cannotRead(
                    path: path, reason: "cannot spool it to \(spoolDirectory): \(error.underlying)")
            default:
                throw FavoritesImportError.cannotRead(path: path, reason: "\(error)")
            }
        }
    }
}
