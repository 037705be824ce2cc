public import Foundation

/// Files a test makes, written in place.
///
/// Not `FileManager.createFile(atPath:contents:)`, nor `write(…, atomically: true)`:
/// swift-corelibs-foundation writes those through a `TemporaryDirectory.*` folder it
/// makes in the system's temporary directory and leaves behind (`.ci/run` fails a run
/// that leaves files there). A test's files live in its own ``TemporaryDirectory``.
public enum TestFile {
    /// Creates (or truncates) the file at `path` with `contents`; whether it worked.
    @discardableResult
    public static func create(atPath path: String, contents: Data? = nil) -> Bool {
        (try? (contents ?? Data()).write(to: URL(fileURLWithPath: path))) != nil
    }
}
