/// Work a middleware asks the store to do after an action: nothing, an
/// asynchronous operation that may send actions back, or a cancellation.
public struct Effect<Action: Sendable>: Sendable {
    /// How an effect runs beside the other effects of the store.
    public enum Policy: Sendable, Hashable {
        /// Alongside every other effect; it cannot be cancelled by ID.
        case concurrent
        /// Starting it cancels the effect in flight with this ID (whose later
        /// actions are dropped), so only the newest runs: searches, page loads.
        case cancelInFlight(EffectID)
        /// It waits until every earlier effect of this ID has finished: effects of
        /// one ID run one at a time, in dispatch order, and the actions they send
        /// arrive in that order too. For writes whose order matters (store, then unstore).
        case serial(EffectID)

        /// The ID the policy names, if any.
        var id: EffectID? {
            switch self {
            case .concurrent: nil
            case .cancelInFlight(let id), .serial(let id): id
            }
        }
    }

    enum Operation: Sendable {
        case none
        case run(Policy, body: @Sendable (Send<Action>) async -> Void)
        case cancel(EffectID)
        case merge([Effect<Action>])
    }

    let operation: Operation

    /// No work.
    public static var none: Effect { Effect(operation: .none) }

    /// An asynchronous operation that sends actions back with `send`, run by `policy`.
    ///
    /// ```swift
    /// .run(.cancelInFlight("archive.search")) { send in await send(.success(try await api.search())) }
    /// ```
    ///
    /// The body cannot throw: it turns its errors into actions, so that no
    /// effect can crash the process. ``cancel(id:)`` cancels an effect by its policy's ID.
    public static func run(
        _ policy: Policy = .concurrent, _ body: @escaping @Sendable (_ send: Send<Action>) async -> Void
    ) -> Effect {
        Effect(operation: .run(policy, body: body))
    }

    /// Cancels the effect in flight with this ID, if any, and those waiting
    /// behind it; their later actions are dropped.
    public static func cancel(id: EffectID) -> Effect {
        Effect(operation: .cancel(id))
    }

    /// Several effects at once.
    public static func merge(_ effects: [Effect]) -> Effect {
        Effect(operation: .merge(effects))
    }
}

// MARK: - Observing

/// How an effect ended, for an observer of effects (a log).
public struct EffectReport: Sendable, Hashable {
    /// The ID of the effect's policy, if any.
    public let id: EffectID?
    /// How long its body ran.
    public let duration: Duration
    /// Whether it was cancelled before it returned (its later actions were dropped).
    public let wasCancelled: Bool
}

extension Effect {
    /// The same effect, calling `onFinish` when each operation it runs returns.
    /// Cancellations and `none` are unchanged; the work, its policy and its actions too.
    public func observed(_ onFinish: @escaping @Sendable (EffectReport) -> Void) -> Effect {
        switch operation {
        case .none, .cancel:
            return self
        case .merge(let effects):
            return .merge(effects.map { $0.observed(onFinish) })
        case .run(let policy, let body):
            return .run(policy) { send in
                let clock = ContinuousClock()
                let start = clock.now
                await body(send)
                onFinish(EffectReport(id: policy.id, duration: clock.now - start, wasCancelled: Task.isCancelled))
            }
        }
    }
}
