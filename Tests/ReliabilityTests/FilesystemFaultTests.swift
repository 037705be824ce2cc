import ArchiveStorage
import Foundation
import TestSupport
import Testing

/// Faults of the file system itself, in a private mount namespace (`unshare -m`)
/// so that the tmpfs mounts vanish with the test: a read-only file system and a full disk.
/// Needs root or user namespaces (CI runs as root); where neither is available the
/// tests fail with what is missing: they are never skipped.
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct FilesystemFaultTests {
    /// Runs `script` as `sh -c` in a private mount namespace, with `$D` a 2 MB tmpfs
    /// mounted on a directory of the test's own, and returns what it printed.
    func runIsolated(_ script: String) throws -> String {
        if let missing = MountSupport.missing { throw MountUnavailable(description: missing) }
        let directory = try TemporaryDirectory()
        let archive = BuiltProduct.url(named: "archive").path
        let helper = BuiltProduct.url(named: "ReliabilityHelper").path
        let mountPoint = directory.path("tmpfs")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let result = try ChildProcess.run(MountSupport.unshare, MountSupport.namespaceArguments + ["sh", "-c",
            "exec 2>&1; set -u; A='\(archive)'; H='\(helper)'; D='\(mountPoint)'; mount -t tmpfs -o size=2m tmpfs $D || exit 90; " + script])
        #expect(result.status != 90, "could not mount a tmpfs: \(result.stdout)")
        return result.stdout
    }

    struct MountUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    @Test func aReadOnlyFileSystemGivesAClearErrorAndChangesNothing() throws {
        let output = try runIsolated("""
            $A add 17 --database $D/f.sqlite3 >/dev/null 2>&1
            $A add 33 --database $D/f.sqlite3 >/dev/null 2>&1
            before=$(sha256sum < $D/f.sqlite3)
            mount -o remount,ro $D
            $A add 5 --database $D/f.sqlite3; echo "add-status=$?"
            $A favorites --database $D/f.sqlite3 >/dev/null; echo "read-status=$?"
            after=$(sha256sum < $D/f.sqlite3)
            [ "$before" = "$after" ] && echo unchanged
            """)
        #expect(output.contains("add-status=1"), "\(output)")
        #expect(output.contains("is not writable (Read-only file system)"), "\(output)")
        #expect(output.contains("unchanged"), "\(output)")
        #expect(!output.contains("Fatal error"), "\(output)")
    }

    /// `archive sync` with a database on a read-only file system: refused before either
    /// side is written (a sync writes both), with the system's reason.
    @Test func aSyncWithAReadOnlyDatabaseIsRefusedAndChangesNeither() throws {
        let output = try runIsolated("""
            L=$D/../local.sqlite3
            $A add 17 --database $D/peer.sqlite3 >/dev/null 2>&1
            $A add 21 --database $L >/dev/null 2>&1
            before=$(sha256sum < $D/peer.sqlite3)
            mount -o remount,ro $D
            $A --database $L sync $D/peer.sqlite3; echo "sync-status=$?"
            after=$(sha256sum < $D/peer.sqlite3)
            [ "$before" = "$after" ] && echo unchanged
            $A --database $L favorites --json
            """)
        #expect(output.contains("sync-status=1"), "\(output)")
        #expect(output.contains("peer.sqlite3 (Read-only file system): a sync writes both databases; nothing was synced"), "\(output)")
        #expect(output.contains("unchanged"), "\(output)")
        #expect(!output.contains("\"id\" : 17") && !output.contains("\"id\":17"), "nothing was received either: \(output)")
    }

    @Test func aFullDiskDuringImportFailsCleanlyAndImportsNothing() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("big.json")
        try writeImportFile(file, firstID: 1_000, count: 30_000)
        let output = try runIsolated("""
            $A add 17 --database $D/f.sqlite3 >/dev/null 2>&1
            $A import '\(file)' --database $D/f.sqlite3; echo "import-status=$?"
            $A favorites --json --database $D/f.sqlite3 | grep '"total"'
            $A check --database $D/f.sqlite3 | head -1
            $A import '\(file)' --database $D/new.sqlite3; echo "new-status=$?"
            echo "left=$(ls -A $D | grep -c new)"
            """)
        #expect(output.contains("import-status=1"), "\(output)")
        // Into a new database (built beside its path): nothing of it is left.
        #expect(output.contains("new-status=1"), "\(output)")
        #expect(output.contains("cannot create the database /"), "\(output)")  // the path asked for, not the temporary file's
        #expect(output.contains("/new.sqlite3: database or disk is full; nothing was imported"), "\(output)")
        #expect(output.contains("left=0"), "\(output)")
        #expect(output.contains("full"), "\(output)")
        #expect(output.contains("\"total\" : 1\n"), "\(output)")
        #expect(output.contains("\nok\n") || output.hasSuffix("ok\n"), "\(output)")
    }
}
