public import ArchiveStorage

/// The settings of an environment built without them (tests of other features):
/// reads give the defaults, writes are refused with a message saying so.
public struct UnavailableSettingsRepository: SettingsRepository {
    /// The stand-in.
    public init() {}

    public func entries() throws -> [SettingEntry] { ArchiveSetting.all.map { SettingEntry(setting: $0, storedValue: nil) } }
    public func entry(_ setting: ArchiveSetting) throws -> SettingEntry { SettingEntry(setting: setting, storedValue: nil) }
    public func set(_ setting: ArchiveSetting, to value: SettingValue) throws { throw Unavailable() }
    public func reset(_ setting: ArchiveSetting) throws -> Bool { throw Unavailable() }
    public func lastSearch() throws -> LastSearch { LastSearch() }
    public func rememberSearch(keyword: String, category: String) throws {}
    public func rememberView(_ view: ArchiveView) throws {}

    private struct Unavailable: Error, CustomStringConvertible {
        var description: String { "this store was made without a settings repository: nothing can be saved" }
    }
}
