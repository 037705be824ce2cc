#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArchiveStorage
import SQLite
#if canImport(Glibc)
import Glibc
#endif

/// Where an export goes, resolved and checked before a byte is written (``OutputPath``:
/// the rule `archive-server backup` follows too, but for streams, which a backup refuses).
///
/// - `nil`, `-` and `/dev/stdout` are standard output.
/// - A regular file (or a missing one) is written whole or not at all: into a
///   temporary file beside it, synced, then renamed onto it. A symbolic link is
///   followed: its target is replaced, the link stays a link.
/// - An existing FIFO or character device (`/dev/null`, a named pipe) is written
///   directly: there is no file to replace.
/// - The database's own file, its `-wal`, `-shm` or `-journal`, is refused,
///   by whatever name it is reached (``DatabaseFiles``).
public enum ExportDestination: Sendable, Hashable {
    /// Standard output.
    case standardOutput
    /// A regular file (existing or not), replaced atomically; the path is the link's target for a link.
    case file(path: String)
    /// An existing FIFO or character device, written as a stream.
    case stream(path: String)

    /// Resolves the `--output` argument, refusing the files of the database at `databasePath`.
    public static func resolve(_ argument: String?, protecting databasePath: String) throws(ExportError) -> ExportDestination {
        let protected = DatabaseFiles(databasePath: databasePath)
        guard let argument, argument != "-", argument != "/dev/stdout" else {
            if protected.contains(descriptor: STDOUT_FILENO) {
                throw .outputIsTheDatabase(path: "standard output", database: databasePath)
            }
            return .standardOutput
        }
        guard !argument.isEmpty else { throw .invalidOutput(path: argument, reason: "the path is empty") }
        guard !argument.hasSuffix("/") else { throw .invalidOutput(path: argument, reason: "it ends in /, so it names a directory; name a file inside it") }
        let output: OutputPath
        do {
            output = try OutputPath(argument)
        } catch {
            throw .invalidOutput(path: argument, reason: error.reason)
        }
        if protected.contains(path: output.target) {
            throw .outputIsTheDatabase(path: argument, database: databasePath)
        }
        switch output.kind {
        case .missing, .regularFile: return .file(path: output.target)
        case .fifo, .characterDevice: return .stream(path: output.target)
        case .directory: throw .invalidOutput(path: argument, reason: "it is a directory; name a file inside it")
        case .other: throw .invalidOutput(path: argument, reason: "it is not a regular file, a FIFO or a character device")
        }
    }

    /// Runs `body` with a handle on the destination and returns its result.
    ///
    /// For a file, what `body` writes replaces the file only when `body` returns;
    /// when it throws (or anything after it fails) the temporary file is removed
    /// and the original file is untouched.
    public func write<Result>(_ body: (FileDescriptorHandle) throws -> Result) throws -> Result {
        do {
            return try unnamedWrite(body)
        } catch let error as ExportError {
            let named = error.naming(name)
            switch (self, named) {
            case (.standardOutput, .cannotWrite(let path, let reason)), (.stream, .cannotWrite(let path, let reason)):
                throw ExportError.incompleteStream(path: path, reason: reason)
            default:
                throw named
            }
        }
    }

    /// How messages name the destination.
    public var name: String {
        switch self {
        case .standardOutput: "standard output"
        case .file(let path), .stream(let path): path
        }
    }

    private func unnamedWrite<Result>(_ body: (FileDescriptorHandle) throws -> Result) throws -> Result {
        switch self {
        case .standardOutput:
            return try body(.standardOutput)
        case .stream(let path):
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
            let handle = FileDescriptorHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            return try body(handle)
        case .file(let path):
            return try AtomicFile(replacing: path).write(body)
        }
    }
}
