import NIOConcurrencyHelpers

/// The connections a server has open, shared by every connection's
/// ``ConnectionLimitHandler``: past `limit`, a new connection is refused.
final class ConnectionCounter: Sendable {
    let limit: Int
    private let open = NIOLockedValueBox(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection; `false` (and not counted) when `limit` are open already.
    func admit() -> Bool {
        open.withLockedValue { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Forgets a connection that ``admit()`` counted.
    func release() {
        open.withLockedValue { $0 -= 1 }
    }
}
