/// A pure function that applies an action to the state: `(inout State, Action) -> Void`.
///
/// A reducer cannot dispatch: it has no access to the store, so reentrant
/// dispatch from inside a reducer is impossible by construction.
public struct Reducer<State, Action>: Sendable {
    private let reduce: @Sendable (inout State, Action) -> Void

    /// Wraps a reducing function.
    public init(_ reduce: @escaping @Sendable (_ state: inout State, _ action: Action) -> Void) {
        self.reduce = reduce
    }

    /// Applies `action` to `state`.
    public func callAsFunction(_ state: inout State, _ action: Action) {
        reduce(&state, action)
    }
}
