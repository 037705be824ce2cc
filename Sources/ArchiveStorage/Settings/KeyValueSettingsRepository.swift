#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SQLite

/// ``SettingsRepository`` on the ``KeyValueStore``: each setting is the entry of its name.
public struct KeyValueSettingsRepository: SettingsRepository {
    /// The store holding the entries.
    public let store: KeyValueStore

    /// A repository over `store`.
    public init(store: KeyValueStore) {
        self.store = store
    }

    public func entries() throws -> [SettingEntry] {
        try store.queue.snapshot { _ in try ArchiveSetting.all.map(entry) }
    }

    public func entry(_ setting: ArchiveSetting) throws -> SettingEntry {
        SettingEntry(setting: setting, storedValue: try storedValue(of: setting))
    }

    public func set(_ setting: ArchiveSetting, to value: SettingValue) throws {
        if let reason = setting.readOnlyReason { throw SettingsError.readOnly(key: setting.name, reason: reason) }
        try write(value, for: setting)
    }

    /// Removes the setting's entry (it then reads as its default). A read-only setting
    /// (``ArchiveSetting/installDate``) is refused, unless its entry cannot be read (another
    /// program wrote a value of the wrong type): then removing it is the way out, which
    /// `archive check` names.
    @discardableResult
    public func reset(_ setting: ArchiveSetting) throws -> Bool {
        if let reason = setting.readOnlyReason {
            do {
                _ = try storedValue(of: setting)
                throw SettingsError.readOnly(key: setting.name, reason: reason)
            } catch is KeyValueStoreError {
                // Damaged: removed below.
            }
        }
        return try store.remove(KeyValueStore.Key<String>(setting.name, default: ""))
    }

    public func lastSearch() throws -> LastSearch {
        try store.queue.snapshot { _ in
            LastSearch(entries: try [ArchiveSetting.lastSearchKeyword, .lastSearchCategory, .lastView].map(entry))
        }
    }

    /// Writes the search only when it differs from the one remembered: a repeated
    /// search (`archive search --last`, the same query again) takes no write lock,
    /// and a process that otherwise only reads creates no WAL to sync and checkpoint.
    ///
    /// A keyword or category that `settings set` would refuse (longer than
    /// ``ArchiveSetting/maximumTextLength``, or with control characters) is not
    /// remembered: ``SettingsError/invalidValue(key:value:expected:)``, and the search
    /// remembered before stays. So it does when another connection holds the write lock:
    /// the write does not wait for it (``DatabaseQueue/writeWithoutWaiting(_:)``).
    public func rememberSearch(keyword: String, category: String) throws {
        _ = try ArchiveSetting.lastSearchKeyword.parse(keyword)
        _ = try ArchiveSetting.lastSearchCategory.parse(category)
        // A value that cannot be read (another program stored the wrong type) is overwritten.
        let remembered = try? store.queue.snapshot { _ in
            [try storedValue(of: .lastSearchKeyword), try storedValue(of: .lastSearchCategory)]
        }
        guard remembered != [.string(keyword), .string(category)] else { return }
        // Never behind another process's write transaction: the search's answer must not
        // wait for it (refused at once, `busy`; the search remembered before stays).
        try store.queue.writeWithoutWaiting { _ in
            try write(.string(keyword), for: .lastSearchKeyword)
            try write(.string(category), for: .lastSearchCategory)
        }
    }

    /// Writes the view only when it differs from the one remembered (see ``rememberSearch(keyword:category:)``).
    public func rememberView(_ view: ArchiveView) throws {
        guard (try? storedValue(of: .lastView)) != .string(view.rawValue) else { return }
        try write(.string(view.rawValue), for: .lastView)
    }

    /// Keeps `server` as ``ArchiveSetting/syncServer`` and, in the same transaction, the CA
    /// file trusted for it (``ArchiveSetting/syncCAFile``): `caFile` when given; else the one
    /// kept already when `server` is the server kept already; else none (a CA file kept for
    /// one server is never trusted for another).
    public func keepSyncServer(_ server: String, caFile: String?) throws {
        try store.queue.write { _ in
            let keptServer = try? storedValue(of: .syncServer), keptCAFile = try? storedValue(of: .syncCAFile)
            let trusted: SettingValue = caFile.map(SettingValue.string)
                ?? (keptServer == .string(server) ? keptCAFile ?? .string("") : .string(""))
            try write(.string(server), for: .syncServer)
            try write(trusted, for: .syncCAFile)
        }
    }

    /// The CA file kept for `server` (``keepSyncServer(_:caFile:)``): `nil` when `server` is
    /// not the kept ``ArchiveSetting/syncServer`` or no CA file is kept with it.
    public func keptSyncCAFile(for server: String) throws -> String? {
        try store.queue.snapshot { _ in
            guard try storedValue(of: .syncServer) == .string(server),
                case .string(let caFile)? = try storedValue(of: .syncCAFile), !caFile.isEmpty
            else { return nil }
            return caFile
        }
    }

    /// Records the install date unless one is recorded: called when a database is created.
    func recordInstallDate(_ date: Date) throws {
        let key = KeyValueStore.Key<Date>(ArchiveSetting.installDate.name, default: date)
        try store.queue.write { _ in
            if try !store.contains(key) { try store.set(date, for: key) }
        }
    }

    /// The key under which a finished sync records how far this database's change feed
    /// had gone (what ``syncStatus(changesSince:)`` counts from): not a setting, as no
    /// one sets it by hand.
    static let lastSyncSeqKey = KeyValueStore.Key<Int>("lastSyncSeq", default: 0)

    /// Records a sync that finished at `date`, when this database's feed ended at `seq`.
    func recordSync(at date: Date, seq: Int64) throws {
        try store.queue.write { _ in
            try write(.date(date), for: .lastSync)
            try store.set(Int(seq), for: Self.lastSyncSeqKey)
        }
    }

    /// When the last sync finished (`nil`: never), and the feed's end then.
    func lastSyncRecord() throws -> (date: Date?, seq: Int64) {
        try store.queue.snapshot { _ in
            let date: Date? = if case .date(let date)? = try? storedValue(of: .lastSync) { date } else { nil }
            return (date, Int64(try store.value(for: Self.lastSyncSeqKey)))
        }
    }

    // MARK: - Typed access

    private func storedValue(of setting: ArchiveSetting) throws -> SettingValue? {
        switch setting.type {
        case .bool: try store.storedValue(named: setting.name, as: Bool.self).map(SettingValue.bool)
        case .date: try store.storedValue(named: setting.name, as: Date.self).map(SettingValue.date)
        default: try store.storedValue(named: setting.name, as: String.self).map(SettingValue.string)
        }
    }

    private func write(_ value: SettingValue, for setting: ArchiveSetting) throws {
        switch value {
        case .bool(let flag): try store.set(flag, for: KeyValueStore.Key<Bool>(setting.name, default: false))
        case .string(let text): try store.set(text, for: KeyValueStore.Key<String>(setting.name, default: ""))
        case .date(let date): try store.set(date, for: KeyValueStore.Key<Date>(setting.name, default: date))
        }
    }
}
