@testable import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing

/// The settings on the key-value store: typed, with defaults, read-only where
/// the archive keeps them, and the install date written once.
@Suite(.timeLimit(.minutes(5)))
struct SettingsRepositoryTests {
    @Test func aNewDatabaseRecordsItsInstallDateOnceAndReopeningKeepsIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.sqlite3")
        let before = Date()
        let created = try ArchiveDatabase(path: path)
        let recorded = try #require(try created.settings.entry(.installDate).storedValue)
        guard case .date(let date) = recorded else { Issue.record("installDate is \(recorded)"); return }
        #expect(date >= before.addingTimeInterval(-1) && date <= Date().addingTimeInterval(1))
        #expect(try created.integrityReport().installDate == date)
        // Reopening (another process, later) never rewrites it.
        let reopened = try ArchiveDatabase(path: path)
        #expect(try reopened.settings.entry(.installDate).storedValue == recorded)
        #expect(try ArchiveDatabase.integrityReport(path: path).installDate == date)
    }

    @Test func aDatabaseFromBeforeInstallDatesHasNoneAndGetsNoneMadeUp() throws {
        let directory = try TemporaryDirectory()
        let path = try ReleasedSchemaTests.copyOfFixture("schema-v2.sqlite3", into: directory)
        let database = try ArchiveDatabase(path: path)
        #expect(try database.settings.entry(.installDate).value == nil)
        #expect(try database.integrityReport().installDate == nil)
    }

    @Test func valuesAreParsedAsTheKeysTypeAndRefusedOtherwise() throws {
        #expect(try ArchiveSetting.onboardingStatus.parse("FALSE") == .bool(false))
        #expect(try ArchiveSetting.lastView.parse("favorites") == .string("favorites"))
        #expect(try ArchiveSetting.lastSearchKeyword.parse("") == .string(""))
        for (setting, text) in [
            (ArchiveSetting.onboardingStatus, "1"), (.onboardingStatus, "yes"), (.onboardingStatus, ""),
            (.lastView, "Favorites"), (.lastSearchKeyword, "a\u{1B}[2J"), (.lastSearchKeyword, "a\nb"),
            (.lastSearchKeyword, String(repeating: "x", count: ArchiveSetting.maximumTextLength + 1)),
            (.installDate, "yesterday"),
        ] {
            #expect(throws: SettingsError.self, "\(setting.name) = \(text.debugDescription)") { try setting.parse(text) }
        }
        #expect(throws: SettingsError.unknownKey("theme", known: ArchiveSetting.all.map(\.name))) { try ArchiveSetting.named("theme") }
    }

    @Test func aRefusedValueIsQuotedWholeUpTo64CharactersAndCutBeyond() {
        let exact = String(repeating: "é", count: 64)
        #expect(SettingsError.invalidValue(key: "k", value: exact, expected: "e").description.hasPrefix("'\(exact)' is not"))
        let huge = String(repeating: "a", count: 100_000)
        let message = SettingsError.invalidValue(key: "lastSearchKeyword", value: huge, expected: "a short string").description
        #expect(message == "'\(String(repeating: "a", count: 64))…' (100000 characters) is not a valid value for lastSearchKeyword: expected a short string; nothing was written")
        #expect(SettingsError.unknownKey(huge, known: ["a"]).description.count < 200)
    }

    @Test func setResetAndReadOnly() throws {
        let database = try ArchiveDatabase.inMemory()
        let settings = database.settings
        #expect(try settings.entry(.lastView).value == .string("archive"))
        try settings.set(.lastView, to: .string("favorites"))
        #expect(try settings.entry(.lastView) == SettingEntry(setting: .lastView, storedValue: .string("favorites")))
        #expect(try settings.lastSearch().view == .favorites)
        #expect(try settings.reset(.lastView))
        #expect(try !settings.reset(.lastView))
        #expect(try settings.entry(.lastView).storedValue == nil)
        #expect(throws: SettingsError.readOnly(key: "installDate", reason: "it is written once, when the database is created")) {
            try settings.set(.installDate, to: .date(Date()))
        }
        #expect(throws: SettingsError.self) { try settings.reset(.installDate) }
        // The onboarding flag is the onboarding repository's own key.
        try settings.set(.onboardingStatus, to: .bool(false))
        #expect(try !database.onboarding.shouldShowOnboarding())
    }

    @Test func theLastSearchIsRememberedAndAnEntryOfTheWrongTypeIsAClearError() throws {
        let database = try ArchiveDatabase.inMemory()
        #expect(try database.settings.lastSearch() == LastSearch())
        try database.settings.rememberSearch(keyword: "寿司", category: "和食")
        try database.settings.rememberView(.favorites)
        #expect(try database.settings.lastSearch() == LastSearch(keyword: "寿司", category: "和食", view: .favorites))
        // Another program wrote an int where a string belongs: reading says so, reset repairs.
        try database.keyValueStore.set(7, for: KeyValueStore.Key<Int>("lastSearchKeyword", default: 0))
        #expect(throws: KeyValueStoreError.typeMismatch(key: "lastSearchKeyword", stored: "int", expected: .string)) {
            try database.settings.entries()
        }
        try database.settings.reset(.lastSearchKeyword)
        #expect(try database.settings.lastSearch().keyword == "")
    }

    @Test func rememberingWritesOnlyWhatChangedAndRepairsAWrongType() throws {
        let database = try ArchiveDatabase.inMemory()
        func changes() throws -> Int {
            try database.queue.read { try $0.fetchOne("SELECT total_changes()") { try $0.column(at: 0) as Int } } ?? -1
        }
        try database.settings.rememberSearch(keyword: "寿司", category: "和食")
        try database.settings.rememberView(.favorites)
        let written = try changes()
        try database.settings.rememberSearch(keyword: "寿司", category: "和食")
        try database.settings.rememberView(.favorites)
        #expect(try changes() == written, "the same search and view again write nothing")
        try database.settings.rememberSearch(keyword: "寿司", category: "")
        #expect(try changes() > written)
        #expect(try database.settings.lastSearch() == LastSearch(keyword: "寿司", category: "", view: .favorites))
        // Another program stored an int: remembering overwrites it rather than failing.
        for name in ["lastSearchKeyword", "lastView"] {
            try database.keyValueStore.set(7, for: KeyValueStore.Key<Int>(name, default: 0))
        }
        try database.settings.rememberSearch(keyword: "寿司", category: "")
        try database.settings.rememberView(.favorites)
        #expect(try database.settings.lastSearch() == LastSearch(keyword: "寿司", category: "", view: .favorites))
    }

    @Test func entriesEncodeTheDocumentedShape() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let entry = SettingEntry(setting: .installDate, storedValue: .date(Date(timeIntervalSince1970: 1.5)))
        #expect(String(decoding: try encoder.encode(entry), as: UTF8.self)
            == #"{"default":null,"isSet":true,"key":"installDate","readOnly":true,"summary":"when this database was created","type":"date","value":"1970-01-01T00:00:01.500Z"}"#)
        let unset = SettingEntry(setting: .onboardingStatus, storedValue: nil)
        #expect(String(decoding: try encoder.encode(unset), as: UTF8.self).contains(#""isSet":false,"key":"onboardingStatus","readOnly":false"#))
    }
}
