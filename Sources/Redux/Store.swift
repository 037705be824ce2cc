/// The single source of truth: holds the state, applies actions through the
/// reducer, and runs the middlewares' effects.
///
/// `dispatch` is deterministic and synchronous: the reducer has produced the
/// new state before any middleware sees the action, and middlewares see that
/// new state. Effects run concurrently; the actions they send are applied one
/// at a time, in order, on the main actor. The store tracks every effect it
/// started, until its body has returned (a cancelled one too, whose actions are
/// dropped), so a test can `await store.finishEffects()` instead of sleeping.
@MainActor
public final class Store<State: Equatable & Sendable, Action: Sendable> {
    /// The current state.
    public private(set) var state: State

    private let reducer: Reducer<State, Action>
    private let middlewares: [Middleware<State, Action>]
    private var running: [EffectToken: Task<Void, Never>] = [:]
    /// Cancelled effects whose bodies have not returned yet: their actions are dropped.
    private var draining: [EffectToken: Task<Void, Never>] = [:]
    private var tokensByID: [EffectID: EffectToken] = [:]
    private var idsByToken: [EffectToken: EffectID] = [:]
    private var waiting: [EffectID: [@Sendable (Send<Action>) async -> Void]] = [:]
    private var nextToken = EffectToken(value: 0)
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var subscribers: [Int: AsyncStream<State>.Continuation] = [:]
    private var nextSubscriber = 0

    /// Where effects prefer to run (`nil`: the runtime's global executor).
    private let effectExecutor: (any TaskExecutor)?

    /// Creates a store with its initial state, reducer and middlewares. Effects run as
    /// tasks that prefer `effectExecutor` (`Task(executorPreference:)`), or on the
    /// runtime's global executor when it is `nil`.
    public init(
        initialState: State, reducer: Reducer<State, Action>, middlewares: [Middleware<State, Action>] = [],
        effectExecutor: (any TaskExecutor)? = nil
    ) {
        self.state = initialState
        self.reducer = reducer
        self.middlewares = middlewares
        self.effectExecutor = effectExecutor
    }

    // MARK: - Dispatch

    /// Applies `action`: reducer first, then every middleware with the new state.
    public func dispatch(_ action: Action) {
        let previous = state
        reducer(&state, action)
        if state != previous {
            for subscriber in subscribers.values { subscriber.yield(state) }
        }
        for middleware in middlewares {
            start(middleware(state, action))
        }
    }

    // MARK: - Effects

    /// Whether any effect started by this store is still running.
    public var hasEffectsInFlight: Bool { !running.isEmpty }

    /// The number of effects in flight.
    public var effectsInFlight: Int { running.count }

    /// Waits until no effect is in flight, including effects started by actions
    /// that effects sent meanwhile, and until every cancelled effect's body has
    /// returned (so whatever a stale effect would have sent has been dropped by then).
    public func finishEffects() async {
        while !running.isEmpty || !draining.isEmpty {
            await withCheckedContinuation { idleWaiters.append($0) }
        }
    }

    /// Cancels the effect in flight with `id`, if any, and any waiting behind it.
    /// Actions they send afterwards are dropped.
    public func cancelEffect(id: EffectID) {
        waiting.removeValue(forKey: id)
        guard let token = tokensByID.removeValue(forKey: id) else { return }
        idsByToken.removeValue(forKey: token)
        if let task = running.removeValue(forKey: token) {
            task.cancel()
            draining[token] = task
        }
        resumeIdleWaitersIfIdle()
    }

    private func start(_ effect: Effect<Action>) {
        switch effect.operation {
        case .none:
            return
        case .cancel(let id):
            cancelEffect(id: id)
        case .merge(let effects):
            effects.forEach(start)
        case .run(let policy, let body):
            switch policy {
            case .concurrent:
                launch(body, id: nil)
            case .cancelInFlight(let id):
                cancelEffect(id: id)
                launch(body, id: id)
            case .serial(let id):
                if tokensByID[id] != nil {
                    waiting[id, default: []].append(body)
                } else {
                    launch(body, id: id)
                }
            }
        }
    }

    private func launch(_ body: @escaping @Sendable (Send<Action>) async -> Void, id: EffectID?) {
        let token = nextToken
        nextToken = EffectToken(value: token.value + 1)
        let send = Send<Action> { [weak self] action in
            self?.receive(action, from: token)
        }
        let operation: @MainActor @Sendable () async -> Void = {
            await body(send)
            self.finished(token)
        }
        running[token] = Task(executorPreference: effectExecutor, operation: operation)
        if let id {
            tokensByID[id] = token
            idsByToken[token] = id
        }
    }

    private func receive(_ action: Action, from token: EffectToken) {
        // A cancelled (or finished) effect is no longer in `running`: drop its actions.
        guard running[token] != nil else { return }
        dispatch(action)
    }

    private func finished(_ token: EffectToken) {
        if draining.removeValue(forKey: token) != nil {
            resumeIdleWaitersIfIdle()
            return
        }
        guard running.removeValue(forKey: token) != nil else { return }
        if let id = idsByToken.removeValue(forKey: token) {
            tokensByID.removeValue(forKey: id)
            if var queue = waiting[id], !queue.isEmpty {
                let next = queue.removeFirst()
                waiting[id] = queue.isEmpty ? nil : queue
                launch(next, id: id)
            }
        }
        resumeIdleWaitersIfIdle()
    }

    private func resumeIdleWaitersIfIdle() {
        guard running.isEmpty, draining.isEmpty else { return }
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - Subscriptions

    /// The current state, then every new state, skipping repeats. For fronts that render.
    public func states() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream.makeStream(of: State.self, bufferingPolicy: .unbounded)
        let key = nextSubscriber
        nextSubscriber += 1
        subscribers[key] = continuation
        continuation.yield(state)
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.subscribers.removeValue(forKey: key) }
        }
        return stream
    }
}

/// Identifies one run of an effect inside a store.
struct EffectToken: Hashable, Sendable {
    let value: UInt64
}
