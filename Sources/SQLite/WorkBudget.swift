internal import CSQLite

/// How much of SQLite's work one step of a statement may take on a connection to a file
/// that is not trusted (``Configuration/workLimit``): SQLite's progress handler counts its
/// virtual machine's instructions, and a step that passes the budget is interrupted
/// (``ResultCode/interrupt``). A view over a recursive query that never yields, or a
/// trigger that never ends, then fails in seconds instead of running for ever.
///
/// The connection (``Database``) owns its budget and gives it to its statements, which
/// refill it before each step; the C handler reads it through an unretained pointer, valid
/// while the connection lives.
final class WorkBudget {
    /// How many instructions pass between two calls of the handler.
    static let instructionsPerCall: Int32 = 10_000

    /// Calls of the handler a step may take.
    private let calls: Int
    /// Calls left to the current step.
    private var remaining: Int

    /// A budget of about `instructions` instructions a step.
    init(instructions: Int) {
        calls = max(1, instructions / Int(Self.instructionsPerCall))
        remaining = calls
    }

    /// Refills the budget: a new step starts.
    func refill() {
        remaining = calls
    }

    /// Installs the budget's handler on `connection`.
    func install(on connection: OpaquePointer) {
        sqlite3_progress_handler(connection, Self.instructionsPerCall, { context in
            guard let context else { return 0 }
            let budget = Unmanaged<WorkBudget>.fromOpaque(context).takeUnretainedValue()
            budget.remaining -= 1
            return budget.remaining < 0 ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }
}
