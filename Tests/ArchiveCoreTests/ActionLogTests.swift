import ArchiveAPI
@testable import ArchiveCore
import ArchiveStorage
import Foundation
import Redux
import TestSupport
import Testing

/// A sink that keeps the lines.
final class RecordingLogSink: ActionLogSink {
    let lines = Recorder<String>()
    func write(line: String) { lines.append(line) }

    var objects: [[String: Any]] {
        lines.values.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

/// `--log-actions`' middleware through a real store on an in-memory database.
@MainActor
@Suite(.timeLimit(.minutes(5)))
struct ActionLogTests {
    @Test func eachActionAndEachFinishedEffectIsOneJSONLine() async throws {
        let database = try ArchiveDatabase.inMemory()
        let sink = RecordingLogSink()
        let store = AppStore(environment: ArchiveEnvironment(database: database), actionLog: sink)
        store.dispatch(.archive(.requestWithInputText("チーズ\u{1B}[2J")))
        await store.settle()
        store.dispatch(.archive(.refreshStoredStatus))
        await store.settle()

        #expect(sink.objects.count == sink.lines.values.count, "every line is JSON: \(sink.lines.values)")
        #expect(sink.lines.values.allSatisfy { !$0.contains("\n") && !$0.contains("\u{1B}") })
        let actions = sink.objects.filter { $0["kind"] as? String == "action" }
        #expect(actions.compactMap { $0["action"] as? String } == [
            "archive.requestWithInputText", "archive.success", "archive.refreshStoredStatus", "archive.storedStatusRefreshed",
        ])
        #expect(actions[0]["payload"] as? String == "\"チーズ\u{1B}[2J\"")
        #expect(actions[0]["changed"] as? [String] == ["archiveState"])
        #expect(actions[1]["payload"] as? String == "entities: [0 items], storedIDs: [0 items]")
        #expect(actions[2]["changed"] as? [String] == [], "the reducer changed nothing")
        #expect((actions[0]["time"] as? String)?.hasSuffix("Z") == true)

        let effects = sink.objects.filter { $0["kind"] as? String == "effect" }
        let search = try #require(effects.first { $0["effect"] as? String == "archive.search" })
        #expect(search["action"] as? String == "archive.requestWithInputText")
        #expect((search["ms"] as? Double).map { $0 >= 0 } == true)
        #expect(search["cancelled"] as? Bool == false)
    }

    @Test func aReplacedSearchIsLoggedAsCancelled() async throws {
        let sink = RecordingLogSink()
        let slow = Gate()
        let database = try ArchiveDatabase.inMemory()
        let store = AppStore(
            environment: ArchiveEnvironment(database: database, api: ControllableArchiveAPI(gates: ["チーズ": slow])),
            actionLog: sink)
        await store.searchOvertakenByANewerOne(slow: slow)
        let searches = sink.objects.filter { $0["effect"] as? String == "archive.search" }
        #expect(searches.count == 2)
        #expect(searches.contains { $0["cancelled"] as? Bool == true && $0["action"] as? String == "archive.requestWithInputText" })
    }

    @Test func summariesNameCasesAndCountCollections() {
        #expect(ActionSummary.describe(.archive(.retry)) == ("archive.retry", nil))
        #expect(ActionSummary.describe(.stopWatchingExternalChanges) == ("stopWatchingExternalChanges", nil))
        let settings = ActionSummary.describe(.settings(.rememberView(.favorites)))
        #expect(settings.name == "settings.rememberView" && settings.payload == "favorites")
        let long = ActionSummary.describe(.archive(.requestWithInputText(String(repeating: "寿", count: 500))))
        #expect((long.payload?.count ?? 0) <= ActionSummary.maximumText + 3)
    }
}
