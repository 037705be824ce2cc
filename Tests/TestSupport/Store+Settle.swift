public import Redux
public import Testing

extension Store {
    /// Waits until no effect is in flight (``Store/finishEffects()``); a test
    /// whose effects never finish fails after ``Deadline/standard``, naming how
    /// many were still running, instead of hanging.
    public func settle(sourceLocation: SourceLocation = #_sourceLocation) async {
        let running = effectsInFlight
        await Deadline.wait(for: "the store's effects finishing (\(running) in flight when the wait began)", sourceLocation: sourceLocation) {
            await self.finishEffects()
        }
    }

    /// Waits until the state satisfies `predicate`, without sleeping; a test
    /// whose state never gets there fails after ``Deadline/standard``, naming `what`.
    public func waitUntil(
        _ what: String = "the awaited state", sourceLocation: SourceLocation = #_sourceLocation,
        _ predicate: @escaping @Sendable (State) -> Bool
    ) async {
        await Deadline.wait(for: what, sourceLocation: sourceLocation) {
            for await state in await self.states() where predicate(state) { return }
        }
    }
}
