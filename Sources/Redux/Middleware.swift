/// Where side effects live: sees every action with the state *after* the
/// reducer ran, and returns the ``Effect`` to perform (usually `.none`).
///
/// Effects receive the store's dispatch function (``Send``) to report back.
public struct Middleware<State, Action: Sendable>: Sendable {
    private let run: @Sendable (State, Action) -> Effect<Action>

    /// Wraps a middleware function.
    public init(_ run: @escaping @Sendable (_ state: State, _ action: Action) -> Effect<Action>) {
        self.run = run
    }

    /// The effect for `action`, given the state after the reducer.
    public func callAsFunction(_ state: State, _ action: Action) -> Effect<Action> {
        run(state, action)
    }
}
