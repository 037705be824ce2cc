/// Work a middleware asks the store to do after an action: nothing, an
/// asynchronous operation that may send actions back, or a cancellation.
public struct Effect<Action: Sendable>: Sendable {
    /// What happens when an effect starts while another one of the same ID is in flight.
    enum Policy: Sendable {
        /// Both run at once (effects without an ID).
        case concurrent
        /// The older one is cancelled; its later actions are dropped.
        case cancelInFlight
        /// The new one waits until the older ones have finished, in dispatch order.
        case serial
    }

    enum Operation: Sendable {
        case none
        case run(id: EffectID?, policy: Policy, body: @Sendable (Send<Action>) async -> Void)
        case cancel(EffectID)
        case merge([Effect<Action>])
    }

    let operation: Operation

    /// No work.
    public static var none: Effect { Effect(operation: .none) }

    /// An asynchronous operation that sends actions back with `send`.
    ///
    /// With an `id`, starting it while another effect of that ID is in flight
    /// cancels the older one first (cancel-in-flight), so that only the newest
    /// runs and the older one's actions are dropped; ``cancel(id:)`` cancels it.
    /// The body cannot throw: it turns its errors into actions, so that no
    /// effect can crash the process.
    public static func run(
        id: EffectID? = nil, _ body: @escaping @Sendable (_ send: Send<Action>) async -> Void
    ) -> Effect {
        Effect(operation: .run(id: id, policy: id == nil ? .concurrent : .cancelInFlight, body: body))
    }

    /// An asynchronous operation that runs only after every earlier effect of
    /// the same `id` has finished: effects of one ID run one at a time, in the
    /// order their actions were dispatched, and the actions they send arrive in
    /// that order too. For writes whose order matters (store, then unstore).
    public static func run(
        serializedOn id: EffectID, _ body: @escaping @Sendable (_ send: Send<Action>) async -> Void
    ) -> Effect {
        Effect(operation: .run(id: id, policy: .serial, body: body))
    }

    /// Cancels the effect in flight with this ID, if any; its later actions are dropped.
    public static func cancel(id: EffectID) -> Effect {
        Effect(operation: .cancel(id))
    }

    /// Several effects at once.
    public static func merge(_ effects: [Effect]) -> Effect {
        Effect(operation: .merge(effects))
    }
}
