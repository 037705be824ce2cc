import ArchiveAPI
import ArchiveHTTP
import Foundation
import TestSupport
import Testing

/// The HTTP client against servers that misbehave: every request ends, with a
/// typed error naming the URL, within its deadline and its body limit.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct HTTPClientLimitTests {
    func search(_ server: HostileHTTPServer, timeout: Duration = .seconds(2), maximumBodyBytes: Int = 1 << 20) async throws -> ArchiveAPIError {
        let repository = try HTTPArchiveRepository(baseURL: server.url, timeout: timeout, maximumBodyBytes: maximumBodyBytes)
        return try await #require(throws: ArchiveAPIError.self) { _ = try await repository.getArchiveResponse(keyword: "", category: "") }
    }

    @Test func anEndlessBodyFailsAtTheCap() async throws {
        let server = try HostileHTTPServer(.endlessBody)
        let error = try await search(server, timeout: .seconds(30))
        #expect(error == .tooLarge(url: server.url + "/archive_images", limit: 1 << 20))
    }

    @Test func anAnnouncedBodyOverTheCapIsRefusedBeforeReadingIt() async throws {
        let server = try HostileHTTPServer(.raw("HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n[]"))
        #expect(try await search(server) == .tooLarge(url: server.url + "/archive_images", limit: 1 << 20))
    }

    /// A byte every 100 ms is progress an idle timeout would wait on for ever: the deadline
    /// covers the whole request, so the dripping server fails as a silent one does. Judged
    /// against that silent server in the same run (a ratio, not a wall-clock bound a busy
    /// machine can break: the old 5 s bound failed 7 times in 10 on a loaded machine).
    @Test func aDrippingServerFailsAtTheDeadline() async throws {
        let silent = try HostileHTTPServer(.hang)
        let silentStart = ContinuousClock.now
        // Bound first, so that a failure shows the error the client gave instead.
        let silentError = try await search(silent, timeout: .seconds(1))
        #expect(silentError == .timeout(url: silent.url + "/archive_images", seconds: 1))
        let baseline = ContinuousClock.now - silentStart
        let server = try HostileHTTPServer(.drip(interval: .milliseconds(100)))
        let start = ContinuousClock.now
        let error = try await search(server, timeout: .seconds(1))
        #expect(error == .timeout(url: server.url + "/archive_images", seconds: 1))
        let dripped = ContinuousClock.now - start
        #expect(dripped < baseline * 4, "the dripping server took \(dripped), the silent one \(baseline)")
    }

    @Test func aServerThatNeverAnswersFailsAtTheDeadline() async throws {
        let server = try HostileHTTPServer(.hang)
        #expect(try await search(server, timeout: .seconds(1)) == .timeout(url: server.url + "/archive_images", seconds: 1))
    }

    @Test func garbageHTMLAnd500AreTypedErrors() async throws {
        let garbage = try HostileHTTPServer(.raw("this is not HTTP\r\n\r\n"))
        guard case .unreachable(let url, _) = try await search(garbage) else { Issue.record("garbage"); return }
        #expect(url == garbage.url + "/archive_images")
        let html = try HostileHTTPServer(.raw("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 15\r\n\r\n<html>hi</html>"))
        guard case .malformedJSON = try await search(html) else { Issue.record("html"); return }
        let failing = try HostileHTTPServer(.raw("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"))
        #expect(try await search(failing) == .badStatus(url: failing.url + "/archive_images", status: 500))
    }

    @Test func aRedirectLoopIsUnreachable() async throws {
        let server = try HostileHTTPServer(.redirectLoop)
        guard case .unreachable(_, let reason) = try await search(server) else { Issue.record("redirect loop"); return }
        #expect(reason.contains("redirects in a loop"))
    }

    @Test func cancellingASearchClosesItsConnection() async throws {
        let server = try HostileHTTPServer(.hang)
        let repository = try HTTPArchiveRepository(baseURL: server.url, timeout: .seconds(60))
        let task = Task { try await repository.getArchiveResponse(keyword: "", category: "") }
        // The waits block: on threads of their own, so that the search's task (on the
        // cooperative pool, as in the program) is never kept from running by this test.
        #expect(await BlockingWorkExecutor.run { server.waitForRequests(1, timeout: .seconds(60)) })  // the request is on the wire
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // The request's connection work is cancelled, not just its result: the server sees the close.
        #expect(await BlockingWorkExecutor.run { server.waitForClosedConnections(1, timeout: .seconds(60)) })
    }
}
