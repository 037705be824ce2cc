import ArchiveStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// Several processes write the same file at once (each waits halfway for the others, so
/// they are all mid-run together): nobody sees busy/locked, nothing is lost.
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct ConcurrencyTests {
    static let processes = 3
    static let operations = 5_000

    @Test func threeLibraryProcessesAndTheCLIWriteTheSameFileAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite3")
        _ = try ArchiveDatabase(path: path)  // created and migrated once; the others race on the rest

        // The writers overlap by construction: each stops halfway until all three are
        // halfway, so each one's second half runs while the others still have theirs to do.
        // The gate is a FIFO: each writer's open for reading blocks until someone holds it
        // for writing, which the test does once all are halfway (no writer polls for it).
        let go = directory.path("go")
        #expect(mkfifo(go, 0o600) == 0, "cannot make the gate FIFO: \(String(cString: strerror(errno)))")
        let children = try (0..<Self.processes).map { index in
            try helper(["churn", path, String(index), String(Self.operations), go])
        }
        for (index, child) in children.enumerated() {
            let line = child.nextLine()
            #expect(line == "half", "process \(index) never got halfway: \(line ?? "no output")")
            if line != "half" { for child in children { _ = child.kill() }; return }
        }
        // Read-write: on Linux this never blocks, and holds the FIFO open for writing so
        // that every reader's open returns, however late it comes.
        let gate = open(go, O_RDWR | O_CLOEXEC)
        #expect(gate >= 0, "cannot open the gate: \(String(cString: strerror(errno)))")
        defer { if gate >= 0 { close(gate) } }
        // Meanwhile the CLI stores and removes catalog dishes and flips the onboarding flag.
        let archive = BuiltProduct.url(named: "archive").path
        var cliFailures: [String] = []
        for round in 0..<40 {
            await Task.yield()
            let id = String(round % 20 + 1)
            for arguments in [["add", id], ["remove", id], ["add", id], ["onboarding", round % 2 == 0 ? "dismiss" : "reset"]] {
                let result = try ChildProcess.run(archive, arguments + ["--database", path])
                if result.status != 0 { cliFailures.append("\(arguments): status \(result.status)") }
            }
        }
        for (index, child) in children.enumerated() {
            let line = child.nextLine()
            let (status, stderr) = { let result = child.wait(); return (result.status, result.stderr) }()
            #expect(status == 0 && line == "done \(Self.operations)", "process \(index): \(stderr)")
            #expect(!stderr.contains("locked") && !stderr.contains("busy"), "process \(index): \(stderr)")
        }
        #expect(cliFailures.isEmpty, "\(cliFailures)")

        let database = try ArchiveDatabase(path: path)
        #expect(try database.integrityReport().isOK)
        for index in 0..<Self.processes {
            let base = (index + 1) * 1_000_000
            let range = Array((base + 1)...(base + Self.operations / 2))
            #expect(try database.favorites.storedIDs(among: range) == Set((base + 1)...(base + 50)), "process \(index)")
            #expect(try database.keyValueStore.value(for: KeyValueStore.Key<Bool>("flag.\(index)", default: true)) == false)
        }
        #expect(try database.favorites.storedIDs(among: Array(1...20)) == Set(1...20))
        #expect(try database.onboarding.shouldShowOnboarding())  // the last round (39) reset it
        #expect(try database.favorites.count() == Self.processes * 50 + 20)
    }
}
