import Foundation
import TestSupport
import Testing

/// What a user feels of a misbehaving catalog: the whole `archive` process.
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct CLIHTTPLimitTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    @Test func waitingOnAHungServerBurnsNoCPU() throws {
        let server = try HostileHTTPServer(.hang)
        // Offline-first: the search answers from the (empty) favorites, saying why.
        let result = try cli.run(["search", "--api-url", server.url, "--timeout", "3"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("offline — showing your favorites: "), "\(result.stderr)")
        #expect(result.stderr.contains("did not answer within 3 s"), "\(result.stderr)")
        // The same command against a refused port: start-up and fallback, without the wait.
        let baseline = try cli.run(["search", "--api-url", "http://127.0.0.1:1", "--timeout", "3"])
        #expect(baseline.status == 0)
        let waiting = result.cpuSeconds - baseline.cpuSeconds
        // A polling client spent ~2.4 s of CPU in such a wait (80 % of it); an idle one next to
        // nothing. A quarter of the wait leaves room for two debug starts' difference on a busy
        // machine (a tenth of a second) and none for polling.
        #expect(waiting < 3 * 0.25, "the 3 s wait used \(waiting) s of CPU (\(result.cpuSeconds) s in all, \(baseline.cpuSeconds) s without waiting)")
    }

    @Test func anEndlessBodyStopsAtTheCapWithBoundedMemory() throws {
        let server = try HostileHTTPServer(.endlessBody)
        // Measured through a small trampoline: the test process's own size must not count.
        let (result, peak) = try PeakMemory.run(
            CLI.executable.path, ["search", "--api-url", server.url, "--database", cli.database], environment: cli.environment())
        #expect(result.status == 0)
        #expect(result.stderr.contains("offline — showing your favorites: "), "\(result.stderr)")
        #expect(result.stderr.contains("more than 8 MiB"), "\(result.stderr)")
        // Bounded, whatever the body: without the cap the client reads gigabytes before its
        // deadline. (About 55 MiB in all, alone or under the parallel suite.)
        #expect(peak < 120, "peak \(peak) MiB")
    }
}
