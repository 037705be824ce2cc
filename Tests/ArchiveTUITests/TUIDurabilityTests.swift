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
        let key = try #require(trace.calls.firstIndex { $0.name == "read" && $0.arguments.contains("</dev/pts/") && $0.arguments.contains(", \" \", ") })
        // ♥ as strace escapes it.
        let heart = try #require(trace.calls.indices.first { index in
            index > key && trace.calls[index].name.hasPrefix("write") && trace.calls[index].arguments.contains("</dev/pts/")
                && trace.calls[index].arguments.contains(#"\342\231\245"#)
        })
        let unsynced = trace.unsynced(before: heart, keeps: SyscallTrace.databaseFiles(database))
        #expect(unsynced.isEmpty, "the heart was drawn before these were on disk:\n\(unsynced.joined(separator: "\n"))")
    }
}
