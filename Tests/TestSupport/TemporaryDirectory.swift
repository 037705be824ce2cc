public import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it on `deinit`.
public final class TemporaryDirectory {
    /// The directory.
    public let url: URL

    /// Creates a new, empty directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("favorite-archive-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// The bytes of the file `name` in the directory (empty when missing).
    public func contents(of name: String) -> Data {
        FileManager.default.contents(atPath: path(name)) ?? Data()
    }

    /// A new temporary directory holding copies of this one's files (a workload's starting
    /// files, run again and again from the same state).
    public func copy() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            try FileManager.default.copyItem(atPath: path(name), toPath: directory.path(name))
        }
        return directory
    }
}
