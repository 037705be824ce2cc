import ArchiveStorage
import Foundation
import SQLite
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct KeyValueStoreTests {
    struct Settings: Codable, Hashable, KeyValueStorable {
        var theme: String
        var pageSize: Int
    }

    let database: ArchiveDatabase
    var store: KeyValueStore { database.keyValueStore }

    init() throws {
        database = try ArchiveDatabase.inMemory()
    }

    private func roundTrip<Value: KeyValueStorable & Equatable>(_ value: Value, default defaultValue: Value) throws {
        let key = KeyValueStore.Key<Value>("key.\(Value.self)", default: defaultValue)
        #expect(try store.value(for: key) == defaultValue)
        #expect(try !store.contains(key))
        try store.set(value, for: key)
        #expect(try store.value(for: key) == value)
        #expect(try store.contains(key))
        #expect(try store.remove(key))
        #expect(try store.value(for: key) == defaultValue)
        #expect(try !store.remove(key))
    }

    @Test func everyTypeRoundTripsAndRemoveRestoresTheDefault() throws {
        try roundTrip(false, default: true)
        try roundTrip(-42, default: 0)
        try roundTrip(2.5, default: 0)
        try roundTrip("12", default: "")
        try roundTrip("オンボーディング", default: "")
        try roundTrip(Date(timeIntervalSince1970: 1_700_000_000.25), default: Date(timeIntervalSince1970: 0))
        try roundTrip(Data([0, 1, 2]), default: Data())
        try roundTrip(Data(), default: Data([9]))
        try roundTrip(Settings(theme: "dark", pageSize: 50), default: Settings(theme: "light", pageSize: 20))
    }

    @Test func readingAsAnotherTypeIsATypeMismatchNotADefault() throws {
        try store.set(7, for: KeyValueStore.Key<Int>("shared", default: 0))
        let error = try #require(throws: KeyValueStoreError.self) {
            _ = try store.value(for: KeyValueStore.Key<Bool>("shared", default: true))
        }
        #expect(error == .typeMismatch(key: "shared", stored: "int", expected: .bool))
        #expect(error.description.contains("shared"))

        try store.set("text", for: KeyValueStore.Key<String>("shared", default: ""))
        #expect(throws: KeyValueStoreError.typeMismatch(key: "shared", stored: "string", expected: .json)) {
            _ = try store.value(for: KeyValueStore.Key<Settings>("shared", default: Settings(theme: "", pageSize: 0)))
        }
    }

    @Test func aValueWrittenByAnotherProgramWithTheWrongShapeIsAClearError() throws {
        try database.queue.write { db in
            try db.execute("INSERT INTO key_value_store (key, type, value, updated_at) VALUES ('flag', 'bool', 'yes', 0)")
            try db.execute("INSERT INTO key_value_store (key, type, value, updated_at) VALUES ('odd', 'bool', 7, 0)")
            try db.execute("INSERT INTO key_value_store (key, type, value, updated_at) VALUES ('json', 'json', '{\"theme\": 1}', 0)")
            try db.execute("INSERT INTO key_value_store (key, type, value, updated_at) VALUES ('alien', 'uuid', 'x', 0)")
        }
        #expect(throws: KeyValueStoreError.self) { _ = try store.value(for: KeyValueStore.Key<Bool>("flag", default: true)) }
        let odd = try #require(throws: KeyValueStoreError.self) { _ = try store.value(for: KeyValueStore.Key<Bool>("odd", default: true)) }
        guard case .invalidValue(let key, let type, _) = odd else {
            Issue.record("expected invalidValue, got \(odd)")
            return
        }
        #expect(key == "odd")
        #expect(type == .bool)
        #expect(throws: KeyValueStoreError.self) {
            _ = try store.value(for: KeyValueStore.Key<Settings>("json", default: Settings(theme: "", pageSize: 0)))
        }
        #expect(throws: KeyValueStoreError.typeMismatch(key: "alien", stored: "uuid", expected: .string)) {
            _ = try store.value(for: KeyValueStore.Key<String>("alien", default: ""))
        }
    }

    @Test func settingReplacesAValueOfAnotherType() throws {
        try store.set(1, for: KeyValueStore.Key<Int>("k", default: 0))
        try store.set(true, for: KeyValueStore.Key<Bool>("k", default: false))
        #expect(try store.value(for: KeyValueStore.Key<Bool>("k", default: false)))
        #expect(try store.entries().filter { $0.name == "k" }.map(\.type) == ["bool"])
    }

    @Test func onboardingIsShownOnANewDatabaseUntilDismissedAndAgainAfterReset() throws {
        let onboarding = database.onboarding
        #expect(try onboarding.shouldShowOnboarding())
        try onboarding.changeOnboardingStatusFalse()
        #expect(try !onboarding.shouldShowOnboarding())
        try onboarding.reset()
        #expect(try onboarding.shouldShowOnboarding())
    }

    @Test func entriesPersistAcrossReopeningAFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("kv.sqlite3")
        do {
            let first = try ArchiveDatabase(path: path)
            try first.onboarding.changeOnboardingStatusFalse()
            try first.keyValueStore.set(Settings(theme: "dark", pageSize: 5), for: KeyValueStore.Key("settings", default: Settings(theme: "", pageSize: 0)))
        }
        let reopened = try ArchiveDatabase(path: path)
        #expect(try !reopened.onboarding.shouldShowOnboarding())
        #expect(try reopened.keyValueStore.value(for: KeyValueStore.Key("settings", default: Settings(theme: "", pageSize: 0))) == Settings(theme: "dark", pageSize: 5))
    }
}
