#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SQLite
#if canImport(Glibc)
import Glibc
#endif

/// Where an export goes, resolved and checked before a byte is written.
///
/// - `nil`, `-` and `/dev/stdout` are standard output.
/// - A regular file (or a missing one) is written whole or not at all: into a
///   temporary file beside it, synced, then renamed onto it. A symbolic link is
///   followed: its target is replaced, the link stays a link.
/// - An existing FIFO or character device (`/dev/null`, a named pipe) is written
///   directly: there is no file to replace.
/// - The database's own file, its `-wal`, `-shm` or `-journal`, is refused,
///   also through a symbolic or hard link (device and inode are compared).
public enum ExportDestination: Sendable, Hashable {
    /// Standard output.
    case standardOutput
    /// A regular file (existing or not), replaced atomically; the path is the link's target for a link.
    case file(path: String)
    /// An existing FIFO or character device, written as a stream.
    case stream(path: String)

    /// Resolves the `--output` argument, refusing the files of the database at `databasePath`.
    public static func resolve(_ argument: String?, protecting databasePath: String) throws(ExportError) -> ExportDestination {
        let protected = ProtectedFiles(databasePath: databasePath)
        guard let argument, argument != "-", argument != "/dev/stdout" else {
            if protected.contains(descriptor: STDOUT_FILENO) {
                throw .outputIsTheDatabase(path: "standard output", database: databasePath)
            }
            return .standardOutput
        }
        guard !argument.isEmpty else { throw .invalidOutput(path: argument, reason: "the path is empty") }
        guard !argument.hasSuffix("/") else { throw .invalidOutput(path: argument, reason: "it ends in /, so it names a directory; name a file inside it") }
        let target = resolveLinks(argument)
        if protected.contains(path: target) {
            throw .outputIsTheDatabase(path: argument, database: databasePath)
        }
        var info = stat()
        guard stat(target, &info) == 0 else {
            guard errno == ENOENT else { throw .invalidOutput(path: argument, reason: String(cString: strerror(errno))) }
            return .file(path: target)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(path: target)
        case S_IFIFO, S_IFCHR: return .stream(path: target)
        case S_IFDIR: throw .invalidOutput(path: argument, reason: "it is a directory; name a file inside it")
        default: throw .invalidOutput(path: argument, reason: "it is not a regular file, a FIFO or a character device")
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
            throw error.naming(name)
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

    /// The path a symbolic link chain ends at (relative links are relative to the
    /// link's directory); `path` itself when it is not a link.
    static func resolveLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {  // as the kernel's own limit on link chains
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = destination.hasPrefix("/")
                ? destination
                : FilePathParts(current).sibling(named: destination)
        }
        return current
    }
}

/// The files of a database that an output must never replace: the database, its
/// `-wal`, `-shm` and `-journal`, by device and inode when they exist and by
/// canonical path when they do not (yet).
package struct ProtectedFiles {
    private var identities: [(dev_t, ino_t)] = []
    private var canonicalPaths: Set<String> = []

    /// The files of the database at `databasePath`, as they are now.
    package init(databasePath: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let path = databasePath + suffix
            var info = stat()
            if stat(path, &info) == 0 { identities.append((info.st_dev, info.st_ino)) }
            canonicalPaths.insert(Self.canonical(path))
        }
    }

    /// Whether `path` names one of them (through any link), or would once created.
    package func contains(path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0, identities.contains(where: { $0 == info.st_dev && $1 == info.st_ino }) { return true }
        return canonicalPaths.contains(Self.canonical(path))
    }

    /// Whether the open regular file `descriptor` is one of them.
    package func contains(descriptor: Int32) -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return identities.contains { $0 == info.st_dev && $1 == info.st_ino }
    }

    /// `path` with its directory resolved (symbolic links, `.`, `..`), the last component kept.
    private static func canonical(_ path: String) -> String {
        let parts = FilePathParts(path)
        let resolved = realpath(parts.directory, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? parts.directory
        return FilePathParts.joining(resolved, parts.name)
    }
}
