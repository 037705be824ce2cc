/// The dispatch function an effect receives: sends actions back into the store.
///
/// Actions sent by an effect that was cancelled meanwhile are dropped, so a
/// replaced search can never overwrite the results of the one that replaced it.
public struct Send<Action: Sendable>: Sendable {
    private let send: @MainActor @Sendable (Action) -> Void

    /// Wraps a main-actor dispatch function.
    public init(_ send: @escaping @MainActor @Sendable (Action) -> Void) {
        self.send = send
    }

    /// Dispatches `action` on the main actor; the reducer has run when this returns.
    @MainActor
    public func callAsFunction(_ action: Action) {
        send(action)
    }
}
