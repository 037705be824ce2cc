public import ArchiveStorage
public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Imports a file of the export format (see ``FavoritesJSONReader``) all or nothing.
///
/// Two passes over the file, at the same time on two threads: one validates
/// every record (the error names the first bad one's index and field) and
/// counts repeated IDs; the other stores them all in one transaction, which
/// commits only once the first pass has found every record good. Both stream
/// the file, so memory stays bounded whatever its size.
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
    public init(path: String, defaultStoredAt: Date = Date(), spoolDirectory: String = NSTemporaryDirectory()) {
        self.path = path
        self.defaultStoredAt = defaultStoredAt
        self.spoolDirectory = spoolDirectory
    }

    /// Reads and validates every record without touching any database; returns their count.
    @discardableResult
    public func validate(progress: (Progress) -> Void = { _ in }) throws -> Int {
        try withSource(progress: progress) { source in
            var duplicates = DuplicateIDCounter(expectedRecords: 0)
            return try validate(source, duplicates: &duplicates, progress: progress)
        }
    }

    /// Stores every record of the file into `favorites` in one transaction, which
    /// commits only once every record has been found good. On any error nothing
    /// was stored.
    ///
    /// The checking pass runs on a thread of its own (``BackgroundValidation``)
    /// while this thread stores: it finds a bad record long before the storing
    /// pass reaches it (it stores nothing) and stops the import there; the storing
    /// pass waits for it at the end of the file. `progress` is called on this
    /// thread, with the storing pass's progress.
    @discardableResult
    public func run(into favorites: any StoredArchiveDataRepository, progress: (Progress) -> Void = { _ in }) throws -> Summary {
        try run(into: favorites, progress: progress, whenCheckingPassEnds: {})
    }

    /// ``run(into:progress:)``, calling `whenCheckingPassEnds` on the checking pass's
    /// thread once that pass has ended and its outcome is recorded, however it ended
    /// (tests order the two passes with it).
    func run(
        into favorites: any StoredArchiveDataRepository, progress: (Progress) -> Void,
        whenCheckingPassEnds: @escaping @Sendable () -> Void
    ) throws -> Summary {
        try withSource(progress: progress) { source in
            let validation = BackgroundValidation({ isCancelled in
                // A record with every field empty takes about 110 bytes ({"id":1,"photoUrl":"", … ,
                // "storedAt":"…Z"}): a file holds at most about size / 110 of them.
                var duplicates = DuplicateIDCounter(expectedRecords: source.size / Self.smallestRecordBytes)
                try self.check(source, duplicates: &duplicates, isCancelled: isCancelled)
                return duplicates
            }, whenEnded: whenCheckingPassEnds)
            let records: Int
            do {
                records = try withReader(source) { reader in
                    try favorites.create(from: {
                        try validation.next {
                            if let object = try reader.next() { return object }
                            // The end of the file: the commit now waits for the checking pass.
                            progress(Progress(phase: .validating, records: reader.count, bytesRead: reader.bytesRead, totalBytes: source.size))
                            return nil
                        }
                    }) { count in
                        progress(Progress(phase: .importing, records: count, bytesRead: reader.bytesRead, totalBytes: source.size))
                    }
                }
            } catch {
                // The checking pass's error names the file's first bad record, which this
                // pass may have met too; any other error (the disk) is this pass's own.
                validation.cancel()
                throw validation.failure ?? error
            }
            let duplicates = try validation.counter()
            return Summary(records: records, imported: records - duplicates.repeats)
        }
    }

    /// About the fewest bytes a record takes in an import file (every text empty).
    static let smallestRecordBytes = 110

    // MARK: - Passes

    /// Validates every record and notes its ID. Throws ``BackgroundValidation/Cancelled``
    /// once `isCancelled` says so.
    @discardableResult
    private func validate(
        _ source: Source, duplicates: inout DuplicateIDCounter, isCancelled: () -> Bool = { false }, progress: (Progress) -> Void
    ) throws -> Int {
        try withReader(source) { reader in
            while let object = try reader.next() {
                duplicates.note(object.id)
                if reader.count % 1_000 == 0 {
                    if isCancelled() { throw BackgroundValidation.Cancelled() }
                    if reader.count % 10_000 == 0 {
                        progress(Progress(phase: .validating, records: reader.count, bytesRead: reader.bytesRead, totalBytes: source.size))
                    }
                }
            }
            progress(Progress(phase: .validating, records: reader.count, bytesRead: reader.bytesRead, totalBytes: source.size))
            return reader.count
        }
    }

    /// The checking pass of ``run(into:progress:)``: ``validate(_:duplicates:isCancelled:progress:)``,
    /// then, when some IDs may repeat, a second reading of the file that counts them.
    private func check(_ source: Source, duplicates: inout DuplicateIDCounter, isCancelled: () -> Bool) throws {
        try validate(source, duplicates: &duplicates, isCancelled: isCancelled) { _ in }
        guard duplicates.hasCandidates else { return }
        try withReader(source) { reader in
            while let object = try reader.next() {
                duplicates.count(object.id)
                if reader.count % 1_000 == 0, isCancelled() { throw BackgroundValidation.Cancelled() }
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
        guard let handle = FileHandle(forReadingAtPath: source.path) else {
            throw FavoritesImportError.cannotRead(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
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
        let input: FileHandle
        if path == "-" {
            input = .standardInput
        } else {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw FavoritesImportError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
            input = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        }
        let spoolPath = (spoolDirectory as NSString).appendingPathComponent(".import-spool-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let descriptor = open(spoolPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw FavoritesImportError.cannotRead(path: path, reason: "cannot spool it to \(spoolDirectory): \(String(cString: strerror(errno)))")
        }
        PartialFiles.shared.register(spoolPath)
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
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
                    path: path, reason: "cannot spool it to \(spoolDirectory): \(error.underlying.localizedDescription)")
            default:
                throw FavoritesImportError.cannotRead(path: path, reason: error.localizedDescription)
            }
        }
    }
}
