import Foundation
import TestSupport
import Testing

/// What `archive-server` is made of: the sync core, the wire, the storage interface and its
/// two backends, the HTTP app; never the favorites engine (`ArchiveStorage`: its
/// migrations, its search index's tables, its repositories) nor anything built on it (the
/// Redux features, the transfer format, the fronts' module, the client's sync). Its Swift
/// symbols carry their module's name (`14ArchiveStorage`), as `CLILinkageTests` reads them
/// for `archive`.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServerLinkageTests {
    @Test func theServerLinksNoEngine() throws {
        let nm = try Prerequisite.path(of: "nm", debianPackage: "binutils")
        let server = try ChildProcess.run(nm, [ServiceProcess.executable.path], environment: [:], input: .null, timeout: .seconds(120))
        try #require(server.status == 0, "\(server.stderr)")
        for module in ["ArchiveStorage", "ArchiveCore", "ArchiveTransfer", "ArchiveFront", "ArchiveSyncClient", "Redux"] {
            #expect(!server.stdout.contains("\(module.utf8.count)\(module)"), "archive-server links \(module)")
        }
        // The check reads mangled module names: the modules the server is made of are seen.
        for module in ["ArchiveSyncModel", "ArchiveSyncWire", "ArchiveServerStorage", "ArchiveServerSQLite", "ArchiveServerPostgres", "ArchiveServer"] {
            #expect(server.stdout.contains("\(module.utf8.count)\(module)"), "no symbol of \(module) seen")
        }
    }
}
