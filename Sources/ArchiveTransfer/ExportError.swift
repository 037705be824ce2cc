/// Why an export could not be written. A file destination is left as it was.
public enum ExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The output would replace the database (or its WAL, shared-memory or journal file).
    case outputIsTheDatabase(path: String, database: String)
    /// The output path cannot be written to (a directory, an empty path...).
    case invalidOutput(path: String, reason: String)
    /// Writing failed (disk full, permissions...); a file destination is left as it was.
    case cannotWrite(path: String, reason: String)
    /// The file is in place at `path`, but its directory could not be synced: a power cut
    /// may bring back what it replaced.
    case directoryNotSynced(path: String, reason: String)
    /// Writing to a stream (standard output, a FIFO, a device) failed after part of the
    /// export went out: what the stream received is incomplete.
    case incompleteStream(path: String, reason: String)

    /// The path a writer that does not know its destination reports; the
    /// destination replaces it with its own.
    static let unnamedOutput = "the output"

    /// The same error, naming `path` if it named no output.
    func naming(_ path: String) -> ExportError {
        if case .cannotWrite(Self.unnamedOutput, let reason) = self { return .cannotWrite(path: path, reason: reason) }
        return self
    }

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .outputIsTheDatabase(let path, let database):
            return "refusing to export to \(path): it is the database \(database) (or one of its files); nothing was written — choose another --output"
        case .invalidOutput(let path, let reason):
            return "cannot export to '\(path)': \(reason); nothing was written"
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason); no file was written"
        case .directoryNotSynced(let path, let reason):
            return "wrote \(path), but its directory could not be synced (\(reason)): a power cut may undo the export; run it again once the disk is healthy"
        case .incompleteStream(let path, let reason):
            return "cannot write \(path): \(reason); what it received is incomplete (a stream cannot be replaced whole): export to a file with --output instead"
        }
    }
}
