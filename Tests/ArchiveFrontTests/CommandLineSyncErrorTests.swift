import ArchiveFront
import Testing

/// The client's sync errors name no front's option (the client module is every front's);
/// the fronts' own words add theirs, and keep the client's for the rest.
@Suite(.timeLimit(.minutes(5)))
struct CommandLineSyncErrorTests {
    static let errors: [SyncTransportError] = [
        .unauthorized(server: "https://s"), .unreachable(server: "https://s", reason: "the connection was refused"),
        .tooLarge(server: "https://s", message: "m"), .refused(server: "https://s", status: 409, message: "m"),
        .badAnswer(server: "https://s", reason: "r"), .timedOut(server: "https://s", seconds: 2),
        .tooManyChanges(server: "https://s", limit: 10, applied: 10), .insecure(server: "http://s"),
        .untrusted(server: "https://s", reason: "r"), .unreadableCAFile(path: "/ca.pem", reason: "no such file"),
    ]

    @Test(arguments: errors)
    func theClientNamesNoOptionAndTheFrontKeepsItsWords(error: SyncTransportError) {
        #expect(!error.description.contains("--") && !error.description.contains("ARCHIVE_"), "\(error.description)")
        let front = CommandLineSyncError(error).description
        #expect(front.hasPrefix(String(error.description.prefix(20))), "\(front)")
    }

    @Test func theFrontSaysWhichOptionChangesWhat() {
        #expect(CommandLineSyncError(.timedOut(server: "https://s", seconds: 2)).description.contains("--timeout sets it"))
        #expect(CommandLineSyncError(.unreadableCAFile(path: "/ca.pem", reason: "r")).description.contains("(--ca-file, ARCHIVE_SYNC_CA_FILE or the syncCAFile setting)"))
        #expect(CommandLineSyncError(.insecure(server: "http://s")).description.contains("--allow-insecure-http"))
        #expect(CommandLineSyncError(.tooManyChanges(server: "https://s", limit: 1, applied: 1)).description.contains("--max-changes"))
        let refused = CommandLineSyncError(.unauthorized(server: "https://s")).description
        #expect(refused.contains("devices add USER LABEL") && refused.contains("--token-stdin"), "\(refused)")
    }
}
