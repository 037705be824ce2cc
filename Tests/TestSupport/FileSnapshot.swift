public import Foundation

/// The exact bytes of a file at one moment, to prove that an operation left it unchanged.
public struct FileSnapshot: Equatable, Sendable {
    /// The file's path.
    public let path: String
    /// Its bytes, or `nil` when it did not exist.
    public let bytes: Data?

    /// Reads the file at `path` now.
    public init(path: String) {
        self.path = path
        self.bytes = FileManager.default.contents(atPath: path)
    }

    /// Whether the file holds the same bytes now as when the snapshot was taken.
    public var isUnchanged: Bool { FileSnapshot(path: path) == self }
}
