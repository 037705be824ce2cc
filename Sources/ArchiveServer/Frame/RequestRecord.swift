import Synchronization

/// What one request did, written by its route and read by the middleware around it once
/// the answer is made: who it was (for the log line) and whether its body was read (a
/// body left unread closes the connection).
public final class RequestRecord: Sendable {
    private struct State {
        var user: String?
        var bodyRead = false
    }

    private let state = Mutex(State())

    /// A record of nothing yet.
    public init() {}

    /// The user the request was authenticated as, if any.
    public var user: String? { state.withLock { $0.user } }

    /// Whether the route read the request's body.
    public var bodyRead: Bool { state.withLock { $0.bodyRead } }

    /// Records that the request is `name`'s.
    func authenticated(as name: String) {
        state.withLock { $0.user = name }
    }

    /// Records that the body was read (whole).
    func readBody() {
        state.withLock { $0.bodyRead = true }
    }
}
