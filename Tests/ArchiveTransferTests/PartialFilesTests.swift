@testable import ArchiveTransfer
import Foundation
import TestSupport
import Testing

/// The registry a signal's cleanup empties while the command's own thread goes on.
@Suite(.timeLimit(.minutes(5)))
struct PartialFilesTests {
    /// A file is created and recorded as one step; the cleanup removes what is recorded
    /// (including a name SQLite may create later), and after it no file is created:
    /// a file made between the cleanup and the process's exit would be left behind.
    @Test func afterTheCleanupNoFileIsCreated() throws {
        let directory = try TemporaryDirectory()
        let registry = PartialFiles()
        let first = directory.path("first")
        let descriptor = registry.create(first, flags: O_WRONLY | O_CLOEXEC, mode: 0o600)
        #expect(descriptor >= 0)
        close(descriptor)
        registry.register(directory.path("first-journal"))
        #expect(TestFile.create(atPath: directory.path("first-journal"), contents: nil))
        // O_EXCL: an existing file is never taken over, nor recorded for removal.
        let kept = directory.path("kept")
        #expect(TestFile.create(atPath: kept, contents: Data("mine".utf8)))
        #expect(registry.create(kept, flags: O_WRONLY | O_CLOEXEC, mode: 0o600) == -1)
        #expect(errno == EEXIST)

        registry.removeAll()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["kept"])
        let late = directory.path("late")
        #expect(registry.create(late, flags: O_WRONLY | O_CLOEXEC, mode: 0o600) == -1)
        #expect(errno == ECANCELED)
        #expect(!FileManager.default.fileExists(atPath: late))
    }

    /// Many threads creating while the cleanup runs: every file made is either removed
    /// by it or refused, never left behind.
    @Test func aCleanupDuringCreationsLeavesNothing() async throws {
        for round in 0..<20 {
            let directory = try TemporaryDirectory()
            let registry = PartialFiles()
            let base = directory.url.path
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for index in 0..<50 {
                            let descriptor = registry.create(
                                base + "/w\(worker)-\(index)", flags: O_WRONLY | O_CLOEXEC, mode: 0o600)
                            if descriptor >= 0 { close(descriptor) }
                        }
                    }
                }
                group.addTask { registry.removeAll() }
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            #expect(left.isEmpty, "round \(round): left \(left)")
        }
    }
}
