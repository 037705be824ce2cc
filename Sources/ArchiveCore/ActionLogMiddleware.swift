public import Redux
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import ArchiveStorage
import Synchronization

/// The logging middleware of the ReSwift samples, for `--log-actions`: one JSON
/// line per dispatched action and one per effect when it finishes.
///
/// ```
/// {"action":"archive.requestWithInputText","changed":["archiveState"],"kind":"action","payload":"\"チーズ\"","time":"…"}
/// {"action":"archive.requestWithInputText","cancelled":false,"effect":"archive.search","kind":"effect","ms":3.1,"time":"…"}
/// ```
///
/// `changed` names the slices of ``AppState`` the reducer changed. The store
/// only builds this middleware when a log is asked for: off, it costs nothing.
public enum ActionLogMiddleware {
    /// One logged action.
    struct ActionLine: Encodable {
        let time: String
        let kind = "action"
        let action: String
        let payload: String?
        let changed: [String]
    }

    /// One finished effect, and the action that started it.
    struct EffectLine: Encodable {
        let time: String
        let kind = "effect"
        let action: String
        let effect: String?
        let ms: Double
        let cancelled: Bool
    }

    /// `middlewares` as one middleware that logs each action (after the reducer),
    /// hands it to each of them in order, and logs each effect they return when it finishes.
    public static func wrapping(
        _ middlewares: [Middleware<AppState, AppAction>], initialState: AppState, into sink: any ActionLogSink,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> Middleware<AppState, AppAction> {
        let previous = Previous(initialState)
        return Middleware { state, action in
            let (name, payload) = ActionSummary.describe(action)
            let before = previous.swap(state)
            write(ActionLine(time: now().iso8601Milliseconds, action: name, payload: payload, changed: changedSlices(before, state)), to: sink)
            return .merge(middlewares.map { middleware in
                middleware(state, action).observed { report in
                    let milliseconds = Double(report.duration.components.seconds) * 1_000
                        + Double(report.duration.components.attoseconds) / 1e15
                    write(EffectLine(
                        time: now().iso8601Milliseconds, action: name, effect: report.id?.name,
                        ms: (milliseconds * 1_000).rounded() / 1_000, cancelled: report.wasCancelled), to: sink)
                }
            })
        }
    }

    /// The names of the slices that differ.
    static func changedSlices(_ before: AppState, _ after: AppState) -> [String] {
        var changed: [String] = []
        if before.onboardingState != after.onboardingState { changed.append("onboardingState") }
        if before.archiveState != after.archiveState { changed.append("archiveState") }
        if before.favoritesState != after.favoritesState { changed.append("favoritesState") }
        if before.settingsState != after.settingsState { changed.append("settingsState") }
        return changed
    }

    private static func write(_ line: some Encodable, to sink: any ActionLogSink) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(line) else { return }
        sink.write(line: String(decoding: data, as: UTF8.self))
    }

    /// The state after the previous action: what this action's reducer started from.
    private final class Previous: Sendable {
        private let state: Mutex<AppState>
        init(_ state: AppState) { self.state = Mutex(state) }
        func swap(_ new: AppState) -> AppState {
            state.withLock { current in
                let old = current
                current = new
                return old
            }
        }
    }
}
