import Synchronization

/// The bytes of request bodies held in memory at once, across every connection
/// (`archive-server --max-body-bytes-in-flight`): each request's limit alone lets 200
/// clients hold 200 nearly full bodies (seen take the server from 34 to 892 MiB). A body
/// reserves its bytes before they are read (all of them when `Content-Length` says how
/// many, else chunk by chunk) and gives them back when its request is answered; a body
/// that finds no room is refused `503`, unread, and sent again later.
final class BodyBudget: Sendable {
    /// The most bytes held at once.
    let limit: Int
    private let held = Mutex(0)

    /// A budget of `limit` bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// Takes `bytes` from the budget; false, taking nothing, when they do not fit.
    func reserve(_ bytes: Int) -> Bool {
        held.withLock { held in
            guard bytes <= limit - held else { return false }
            held += bytes
            return true
        }
    }

    /// Gives back `bytes` reserved earlier.
    func release(_ bytes: Int) {
        held.withLock { $0 -= bytes }
    }

    /// The bytes held now.
    var inUse: Int { held.withLock { $0 } }

    /// A reservation for one request's body, to end when its request is answered.
    func reservation() -> Reservation { Reservation(budget: self) }

    /// The bytes one body holds. Ended once (``end()``), it gives them all back and takes
    /// no more: a read still running past its deadline cannot hold any.
    final class Reservation: Sendable {
        private let budget: BodyBudget
        private let state = Mutex((held: 0, ended: false))

        fileprivate init(budget: BodyBudget) {
            self.budget = budget
        }

        /// Takes `bytes` more; false, taking nothing, when they do not fit or it ended.
        func take(_ bytes: Int) -> Bool {
            state.withLock { state in
                guard !state.ended, budget.reserve(bytes) else { return false }
                state.held += bytes
                return true
            }
        }

        /// Gives back all it holds.
        func end() {
            state.withLock { state in
                state.ended = true
                budget.release(state.held)
                state.held = 0
            }
        }
    }
}
