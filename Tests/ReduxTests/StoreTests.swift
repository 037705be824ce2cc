import Redux
import TestSupport
import Testing

@MainActor
@Suite(.timeLimit(.minutes(5)))
struct StoreTests {
    struct Counter: Equatable, Sendable {
        var value = 0
        var log: [String] = []
    }

    enum Action: Equatable, Sendable {
        case increment
        case set(Int)
        case load(String)
        case loaded(String)
        case noop
    }

    static let reducer = Reducer<Counter, Action> { state, action in
        switch action {
        case .increment: state.value += 1
        case .set(let value): state.value = value
        case .load: break
        case .loaded(let text): state.log.append(text)
        case .noop: break
        }
    }

    @Test func theReducerRunsBeforeMiddlewaresWhichSeeTheNewState() {
        let seen = Recorder<Int>()
        let store = Store(
            initialState: Counter(), reducer: Self.reducer,
            middlewares: [Middleware { state, _ in seen.append(state.value); return .none }])
        store.dispatch(.increment)
        #expect(store.state.value == 1)
        store.dispatch(.increment)
        #expect(seen.values == [1, 2])
    }

    @Test func finishEffectsWaitsForEffectsAndTheEffectsTheyCause() async {
        let store = Store(
            initialState: Counter(), reducer: Self.reducer,
            middlewares: [
                Middleware { _, action in
                    switch action {
                    case .load(let text):
                        return .run { send in await send(.loaded(text)) }
                    case .loaded(let text) where text == "first":
                        return .run { send in await send(.load("second")) }
                    default:
                        return .none
                    }
                }
            ])
        store.dispatch(.load("first"))
        #expect(store.hasEffectsInFlight)
        await store.settle()
        #expect(!store.hasEffectsInFlight)
        #expect(store.state.log == ["first", "second"])
    }

    @Test func aNewerEffectWithTheSameIDCancelsTheOlderAndDropsItsActions() async {
        let gates = ["slow": Gate(), "fast": Gate()]
        let bodiesDone = Gate()
        await bodiesDone.open()
        let store = Store(
            initialState: Counter(), reducer: Self.reducer,
            middlewares: [
                Middleware { _, action in
                    guard case .load(let text) = action else { return .none }
                    return .run(.cancelInFlight("search")) { send in
                        await gates[text]?.wait()
                        await send(.loaded(text))
                        await bodiesDone.wait()
                    }
                }
            ])
        store.dispatch(.load("slow"))
        await gates["slow"]?.waitForArrivals(1)
        store.dispatch(.load("fast"))
        #expect(store.effectsInFlight == 1)
        await gates["fast"]?.open()
        for await state in store.states() where state.log == ["fast"] { break }
        await gates["slow"]?.open()  // the old effect now answers, too late
        // finishEffects waits for the cancelled body too: its send has been dropped by then.
        await store.settle()
        #expect(store.state.log == ["fast"])
    }

    @Test func finishEffectsWaitsUntilACancelledEffectsBodyHasReturned() async {
        let gate = Gate()
        let returned = Recorder<Bool>()
        let store = Store(
            initialState: Counter(), reducer: Self.reducer,
            middlewares: [
                Middleware { _, action in
                    guard case .load = action else { return .none }
                    return .run(.cancelInFlight("job")) { _ in
                        await gate.wait()  // ignores cancellation, as a slow I/O call would
                        returned.append(true)
                    }
                }
            ])
        store.dispatch(.load("x"))
        await gate.waitForArrivals(1)
        store.cancelEffect(id: "job")
        #expect(!store.hasEffectsInFlight)
        async let finished: Void = store.finishEffects()
        await gate.open()
        await finished
        #expect(returned.values == [true])
    }

    @Test func anEffectCanBeCancelledByID() async {
        let gate = Gate()
        let bodyDone = Gate()
        await bodyDone.open()
        let store = Store(
            initialState: Counter(), reducer: Self.reducer,
            middlewares: [
                Middleware { _, action in
                    switch action {
                    case .load(let text):
                        return .run(.cancelInFlight("job")) { send in
                            await gate.wait()
                            await send(.loaded(text))
                            await bodyDone.wait()
                        }
                    case .noop:
                        return .cancel(id: "job")
                    default:
                        return .none
                    }
                }
            ])
        store.dispatch(.load("never"))
        store.dispatch(.noop)
        #expect(!store.hasEffectsInFlight)
        await gate.open()
        await bodyDone.waitForArrivals(1)
        #expect(store.state.log.isEmpty)

        store.dispatch(.load("direct"))
        store.cancelEffect(id: "job")
        #expect(!store.hasEffectsInFlight)
    }

    @Test func serializedEffectsRunOneAtATimeInDispatchOrder() async {
        let first = Gate()
        let store = Store(
            initialState: Counter(), reducer: Self.reducer,
            middlewares: [
                Middleware { _, action in
                    guard case .load(let text) = action else { return .none }
                    return .run(.serial("writes")) { send in
                        if text == "a" { await first.wait() }
                        await send(.loaded(text))
                    }
                }
            ])
        store.dispatch(.load("a"))
        store.dispatch(.load("b"))
        store.dispatch(.load("c"))
        #expect(store.effectsInFlight == 1)
        await first.open()
        await store.settle()
        #expect(store.state.log == ["a", "b", "c"])
    }

    @Test func subscribersGetTheCurrentStateThenEveryChangeWithoutRepeats() async {
        let store = Store(initialState: Counter(), reducer: Self.reducer)
        let states = store.states()
        store.dispatch(.set(1))
        store.dispatch(.set(1))
        store.dispatch(.noop)
        store.dispatch(.set(2))
        var received: [Int] = []
        for await state in states {
            received.append(state.value)
            if received.count == 3 { break }
        }
        #expect(received == [0, 1, 2])
    }

    @Test func anObservedEffectReportsItsIDDurationAndCancellation() async throws {
        let reports = Recorder<EffectReport>()
        let gate = Gate()
        let middleware = Middleware<Counter, Action> { _, action in
            guard case .load(let text) = action else { return .none }
            return Effect.run(.cancelInFlight("load")) { send in
                if text == "slow" { await gate.wait() }
                await send(.loaded(text))
            }.observed { reports.append($0) }
        }
        let store = Store(initialState: Counter(), reducer: Self.reducer, middlewares: [middleware])
        store.dispatch(.load("slow"))
        await gate.waitForArrivals(1)
        store.dispatch(.load("fast"))
        for await state in store.states() where state.log == ["fast"] { break }
        await gate.open()
        await store.settle()
        #expect(store.state.log == ["fast"])
        let values = reports.values
        #expect(values.count == 2)
        #expect(values.allSatisfy { $0.id == "load" })
        #expect(values.map(\.wasCancelled).sorted { !$0 && $1 } == [false, true])
        // The cancelled (slow) effect ran from before the fast one started until after it
        // had finished (the gate opened only then), so its duration holds the other's.
        let slow = try #require(values.first { $0.wasCancelled })
        let fast = try #require(values.first { !$0.wasCancelled })
        #expect(fast.duration > .zero)
        #expect(slow.duration > fast.duration, "slow \(slow.duration), fast \(fast.duration)")
    }
}
