import ArchiveSyncWire
import Foundation
import TestSupport
import Testing

/// The sync API of the real `archive-server`, on its embedded database: push, pull, the
/// merge rule, idempotence, paging, tombstones.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct SyncAPITests {
    let alice = Changes.device(0xA1), laptop = Changes.device(0xA2), tablet = Changes.device(0xA3)

    @Test(arguments: ServiceBackend.allCases)
    func healthAnswersWithoutAToken(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let response = try server.call("GET", "/health")
        #expect(response.status == 200)
        #expect(response.text == #"{"status":"ok"}"#)
    }

    @Test(arguments: ServiceBackend.allCases)
    func aPushIsPulledByTheUsersOtherDevice(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        let pushed = try server.push([Changes.stored(17, at: 1_000, by: alice), Changes.removed(18, at: 1_001, by: alice)], device: alice, through: 2, token: try tokens(alice))
        #expect(pushed.status == 200, "\(pushed.text)")
        let answer = try JSONDecoder().decode(SyncPushResponse.self, from: Data(pushed.body))
        #expect(answer == SyncPushResponse(applied: 2, superseded: 0, alreadyHeld: 0, pushed: 2))

        let (response, page) = try server.pull(device: laptop, token: try tokens(laptop))
        #expect(response.status == 200, "\(response.text)")
        let changes = try #require(page).changes
        #expect(try changes.enumerated().map { try $0.element.change(index: $0.offset) } == [Changes.stored(17, at: 1_000, by: alice), Changes.removed(18, at: 1_001, by: alice)])
        #expect(page?.hasMore == false)
        #expect(page?.pushed == 0, "the laptop pushed nothing")
        // Nothing new: an empty page at the same cursor.
        let (_, again) = try server.pull(device: laptop, cursor: page?.cursor ?? 0, token: try tokens(laptop))
        #expect(again?.changes.isEmpty == true)
        #expect(again?.cursor == page?.cursor)
        // The pushing device learns how far it pushed.
        #expect(try server.pull(device: alice, cursor: page?.cursor ?? 0, token: try tokens(alice)).1?.pushed == 2)
    }

    @Test(arguments: ServiceBackend.allCases)
    func aRetriedPushChangesNothingTwice(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        let batch = [Changes.stored(1, at: 5_000, by: alice), Changes.stored(2, at: 5_001, by: alice)]
        #expect(try server.push(batch, device: alice, through: 2, token: try tokens(alice)).status == 200)
        let retried = try server.push(batch, device: alice, through: 2, token: try tokens(alice))
        #expect(try JSONDecoder().decode(SyncPushResponse.self, from: Data(retried.body)) == SyncPushResponse(applied: 0, superseded: 0, alreadyHeld: 2, pushed: 2))
        #expect(try server.pull(device: laptop, token: try tokens(laptop)).1?.changes.count == 2, "the feed holds each change once")
    }

    @Test(arguments: ServiceBackend.allCases)
    func theServerAppliesTheOneMergeRule(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        // The laptop's later removal reaches the server first; the tablet's older heart loses.
        #expect(try server.push([Changes.removed(5, at: 9_000, by: laptop)], device: laptop, token: try tokens(laptop)).status == 200)
        let older = try server.push([Changes.stored(5, at: 8_000, by: tablet)], device: tablet, token: try tokens(tablet))
        #expect(try JSONDecoder().decode(SyncPushResponse.self, from: Data(older.body)).superseded == 1)
        // Equal times: the greater device wins, whichever arrives first.
        #expect(try server.push([Changes.stored(6, at: 7_000, by: tablet, text: "tablet")], device: tablet, token: try tokens(tablet)).status == 200)
        #expect(try server.push([Changes.stored(6, at: 7_000, by: laptop, text: "laptop")], device: laptop, token: try tokens(laptop)).status == 200)
        let changes = try #require(try server.pull(device: alice, token: try tokens(alice)).1).changes
        let byID = Dictionary(uniqueKeysWithValues: try changes.enumerated().map { ($0.element.id, try $0.element.change(index: $0.offset)) })
        #expect(byID[5] == Changes.removed(5, at: 9_000, by: laptop))
        // Judged by the oracle written apart from the rule (MergeDifferentialTests tries many more).
        #expect(byID[6] == MergeOracle.later(Changes.stored(6, at: 7_000, by: tablet, text: "tablet"), Changes.stored(6, at: 7_000, by: laptop, text: "laptop")))
        #expect(byID[6] == Changes.stored(6, at: 7_000, by: tablet, text: "tablet"), "0xA3… is greater than 0xA2…")
    }

    @Test(arguments: ServiceBackend.allCases)
    func pagesFollowTheCursorToTheEnd(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend, arguments: ["--max-page", "3"])
        let tokens = try server.addUserWithDevices("alice")
        #expect(try server.push((1...7).map { Changes.stored($0, at: 1_000 + Int64($0), by: alice) }, device: alice, token: try tokens(alice)).status == 200)
        var cursor: Int64 = 0
        var ids: [Int] = []
        var pages = 0
        while true {
            let page = try #require(try server.pull(device: laptop, cursor: cursor, token: try tokens(laptop)).1)
            ids += page.changes.map(\.id)
            cursor = page.cursor
            pages += 1
            if !page.hasMore { break }
        }
        #expect(ids == Array(1...7))
        #expect(pages == 3)
        #expect(try server.pull(device: laptop, cursor: 0, limit: 4, token: try tokens(laptop)).0.status == 400, "a limit over --max-page")
    }

    @Test(arguments: ServiceBackend.allCases)
    func aTombstoneGoesOnceEveryDeviceHasPulledIt(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        #expect(try server.push([Changes.stored(3, at: 1_000, by: laptop)], device: laptop, token: try tokens(laptop)).status == 200)
        let tabletFirst = try #require(try server.pull(device: tablet, token: try tokens(tablet)).1)
        #expect(try server.push([Changes.removed(3, at: 2_000, by: laptop)], device: laptop, token: try tokens(laptop)).status == 200)
        // The laptop has applied the feed to its end (it asks from there); the tablet has not
        // seen the removal: it stays.
        let laptopEnd = try #require(try server.pull(device: laptop, token: try tokens(laptop)).1).cursor
        _ = try server.pull(device: laptop, cursor: laptopEnd, token: try tokens(laptop))
        #expect(try server.pull(device: laptop, token: try tokens(laptop)).1?.changes.map(\.favorite) == [nil])
        // The tablet is sent it, and has not said it applied it (the answer may be lost): it stays.
        let tabletSecond = try #require(try server.pull(device: tablet, cursor: tabletFirst.cursor, token: try tokens(tablet)).1)
        #expect(tabletSecond.changes.map(\.favorite) == [nil])
        #expect(try server.pull(device: laptop, token: try tokens(laptop)).1?.changes.map(\.favorite) == [nil])
        // The tablet asks from where that page ended: every device has applied it, it goes.
        #expect(try server.pull(device: tablet, cursor: tabletSecond.cursor, token: try tokens(tablet)).1?.changes.isEmpty == true)
        #expect(try server.pull(device: laptop, token: try tokens(laptop)).1?.changes.isEmpty == true)
        // A late copy of a push made before the removal was pulled cannot bring 3 back: 409, nothing written.
        let late = try server.push([Changes.stored(3, at: 1_500, by: tablet)], device: tablet, seen: tabletFirst.cursor, token: try tokens(tablet))
        #expect(late.status == 409, "\(late.text)")
        #expect(try server.pull(device: laptop, token: try tokens(laptop)).1?.changes.isEmpty == true)
        // Made after pulling that far, a push is taken.
        #expect(try server.push([Changes.stored(4, at: 3_000, by: tablet)], device: tablet, seen: tabletSecond.cursor, token: try tokens(tablet)).status == 200)
        // A device back after any time away, with its old cursor, gets a correct answer: nothing to do.
        let back = try #require(try server.pull(device: tablet, cursor: tabletSecond.cursor, token: try tokens(tablet)).1)
        #expect(back.changes.map(\.id) == [4])
        #expect(!back.reset)
    }

    @Test(arguments: ServiceBackend.allCases)
    func aCursorPastTheFeedsEndReadsItFromTheStart(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let tokens = try server.addUserWithDevices("alice")
        #expect(try server.push([Changes.stored(9, at: 1_000, by: alice)], device: alice, token: try tokens(alice)).status == 200)
        let page = try #require(try server.pull(device: laptop, cursor: 1_000_000, token: try tokens(laptop)).1)
        #expect(page.reset)
        #expect(page.changes.map(\.id) == [9])
    }

    @Test(arguments: ServiceBackend.allCases)
    func theServerStopsGracefullyOnSIGTERM(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend)
        let result = try #require(server.stop(), "archive-server did not exit within a minute of SIGTERM")
        #expect(result.status == 0, "\(result.stderr)")
    }
}
