import SQLite
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a regular file whole or not at all: writes a temporary file beside
/// it (same directory, so the rename cannot cross file systems), syncs it,
/// renames it onto the target and syncs the directory. On any failure before the
/// rename the temporary file is removed and the target is as it was; a failed sync of
/// the directory after it is said (``ExportError/directoryNotSynced(path:reason:)``).
public struct AtomicFile: Sendable {
    /// The file to replace (or create).
    public let path: String
    /// The permissions the file gets (`nil`: the replaced file's, or 0666 less the umask for a new one).
    public let mode: UInt32?

    /// An atomic writer of `path`, the file given `mode` when one is given (a secret: 0600).
    public init(replacing path: String, mode: UInt32? = nil) {
        self.path = path
        self.mode = mode
    }

    /// Runs `body` with a handle on the temporary file, then puts it in place.
    public func write<Result>(_ body: (FileDescriptorHandle) throws -> Result) throws -> Result {
        let parts = FilePathParts(path)
        let temporary = parts.sibling(named: ".\(parts.name).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        var existing = stat()
        let kept: mode_t = stat(path, &existing) == 0 ? existing.st_mode & 0o7777 : 0o666
        let mode = self.mode.map { mode_t($0) } ?? kept
        // A given mode is the file's from its creation: a secret is never readable by others, not even for a moment.
        let descriptor = PartialFiles.shared.create(temporary, flags: O_WRONLY | O_CLOEXEC, mode: mode)
        guard descriptor >= 0 else {
            throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        defer { PartialFiles.shared.unregister(temporary) }
        let handle = FileDescriptorHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        var closed = false
        do {
            if existing.st_mode != 0 || self.mode != nil { fchmod(descriptor, mode) }  // the replaced file's (or the given) permissions, despite the umask
            let result = try body(handle)
            guard fsync(descriptor) == 0 else { throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
            closed = true
            guard close(descriptor) == 0 else { throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
            guard rename(temporary, path) == 0 else {
                throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
            // In place now, whatever follows: a failed sync says the rename may not survive a power cut.
            if let reason = Self.syncDirectory(parts.directory) {
                throw ExportError.directoryNotSynced(path: path, reason: reason)
            }
            return result
        } catch {
            if !closed { close(descriptor) }
            unlink(temporary)
            throw error
        }
    }

    /// Syncs the directory at `path`, so that a rename or link in it survives a power cut;
    /// returns `nil`, or why it could not (`strerror`). A file system that cannot sync a
    /// directory (`EINVAL`: some network and FUSE file systems) is not an error: there is
    /// nothing more to do there.
    static func syncDirectory(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        if fsync(descriptor) != 0, errno != EINVAL { return String(cString: strerror(errno)) }
        return nil
    }
}
