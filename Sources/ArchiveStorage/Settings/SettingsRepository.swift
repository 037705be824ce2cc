/// The archive's settings (``ArchiveSetting/all``): read, set, reset, and the
/// last search the fronts remember. Synchronous and thread-safe, like the other repositories.
public protocol SettingsRepository: Sendable {
    /// Every setting with what it holds, in ``ArchiveSetting/all``'s order.
    func entries() throws -> [SettingEntry]
    /// One setting with what it holds.
    func entry(_ setting: ArchiveSetting) throws -> SettingEntry
    /// Stores `value` (of the setting's type; a read-only setting is refused
    /// with ``SettingsError/readOnly(key:reason:)``).
    func set(_ setting: ArchiveSetting, to value: SettingValue) throws
    /// Removes the stored value, so the setting reads as its default again.
    /// Returns whether there was one. A read-only setting is refused.
    @discardableResult
    func reset(_ setting: ArchiveSetting) throws -> Bool
    /// The last search and view, as remembered (defaults when never remembered).
    func lastSearch() throws -> LastSearch
    /// Remembers a catalog search's conditions (one transaction).
    func rememberSearch(keyword: String, category: String) throws
    /// Remembers the view that is open.
    func rememberView(_ view: ArchiveView) throws
}
