import ArchiveHTTP
import ArchiveSyncWire
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPSyncTransport {
    /// The longest the event stream may stay silent (the server writes a comment every
    /// 15 s): past it the stream counts as gone.
    public static let eventSilenceLimit: Duration = .seconds(45)
    /// The longest one line of the event stream may be.
    static let maximumEventLine = 4_096

    /// Listens to the user's event stream (``SyncAPI/eventsPath``) and calls `moved` each
    /// time the server says the feed moved. Returns when the server ends the stream (it
    /// does after some minutes: listen again); throws ``SyncTransportError`` when it cannot
    /// be reached, refuses (`401`, a server without events), stays silent past
    /// ``eventSilenceLimit``, or sends what is not an event stream.
    public func listenForFeedMoves(_ moved: @escaping @Sendable () -> Void) async throws {
        let base = server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        var request = HTTPClientRequest(url: base + SyncAPI.eventsPath)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        let client = self.client, timeout = self.timeout, shown = base, prepared = request
        let heard = LastHeard()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let response: HTTPClientResponse
                do {
                    response = try await client.execute(prepared, timeout: TimeAmount(timeout))
                } catch {
                    throw Self.unreachable(shown, error)
                }
                switch response.status.code {
                case 200: break
                case 401: throw SyncTransportError.unauthorized(server: shown)
                default: throw SyncTransportError.refused(server: shown, status: Int(response.status.code), message: "no event stream")
                }
                var line: [UInt8] = []
                do {
                    for try await chunk in response.body {
                        heard.now()
                        for byte in chunk.readableBytesView {
                            guard byte != UInt8(ascii: "\n") else {
                                if line.elementsEqual("event: feed".utf8) { moved() }
                                line.removeAll(keepingCapacity: true)
                                continue
                            }
                            guard line.count < Self.maximumEventLine else {
                                throw SyncTransportError.badAnswer(server: shown, reason: "an event line is longer than \(Self.maximumEventLine) bytes")
                            }
                            line.append(byte)
                        }
                    }
                } catch let error as SyncTransportError {
                    throw error
                } catch {
                    throw Self.unreachable(shown, error)
                }
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: .seconds(5))
                    let silent = heard.silence
                    if silent > Self.eventSilenceLimit {
                        throw SyncTransportError.timedOut(server: shown, seconds: Double(Self.eventSilenceLimit.components.seconds))
                    }
                }
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}

/// When the event stream last sent a byte (shared by its reader and its watchdog).
private final class LastHeard: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    /// Records that a byte arrived now.
    func now() { instant.withLock { $0 = .now } }

    /// How long since the last byte.
    var silence: Duration { instant.withLock { ContinuousClock.now - $0 } }
}
