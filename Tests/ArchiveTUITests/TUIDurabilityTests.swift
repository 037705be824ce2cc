import Foundation
import TestSupport
import Testing

extension TUIEndToEndTests {
    /// A heart in `archive-tui` is drawn once it is on disk, watched under strace on the real
    /// binary: after the key arrives, the first ♥ written to the terminal comes after the
    /// WAL's sync (docs/ARCHITECTURE.md, "Durability"). Seen red with `synchronous=NORMAL`.
    @Test func aHeartIsOnDiskBeforeItIsDrawn() throws {
        let database = directory.path("durable.sqlite3")
        try dismissOnboarding(in: database)
        let tui = BuiltProduct.url(named: "archive-tui").path
        let traceFile = directory.path("tui-trace.txt")
        defer { server.stop() }
        let strace = ([try SyscallTrace.strace()] + SyscallTrace.options(output: traceFile, also: ["read"])).map { "'\($0)'" }.joined(separator: " ")
        let pane = try start("\(strace) '\(tui)' --database '\(database)'")
        try waitForScreen("the catalog", on: pane) { $0.contains("66 dishes, 0 ♥") }
        try tmux("send-keys", "-t", session, "Down")
        try tmux("send-keys", "-t", session, "Space")
        try waitForScreen("the heart", on: pane) { $0.contains("66 dishes, 1 ♥") }
        try quit(pane)

        let trace = try SyscallTrace(contentsOf: traceFile)
        // The space may arrive alone or in one read with the arrow before it (`"\33[B "`) when
        // the machine is busy: the read whose bytes hold it is the key.
        let key = try #require(trace.calls.firstIndex { call in
            let parts = call.arguments.split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false)
            return call.name == "read" && call.arguments.contains("</dev/pts/") && parts.count == 3 && parts[1].contains(" ")
        })
        // ♥ as strace escapes it.
        let heart = try #require(trace.calls.indices.first { index in
            index > key && trace.calls[index].name.hasPrefix("write") && trace.calls[index].arguments.contains("</dev/pts/")
                && trace.calls[index].arguments.contains(#"\342\231\245"#)
        })
        let unsynced = trace.unsynced(before: heart, keeps: SyscallTrace.databaseFiles(database))
        #expect(unsynced.isEmpty, "the heart was drawn before these were on disk:\n\(unsynced.joined(separator: "\n"))")
    }
}
