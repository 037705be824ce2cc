public import ArchiveStorage

/// The settings, as last read.
public struct SettingsState: Sendable, Equatable {
    /// Every setting with its value, in ``ArchiveSetting/all``'s order.
    public var entries: [SettingEntry] = []
    /// The last search and view, as remembered.
    public var lastSearch: LastSearch?
    /// A read or write is in flight.
    public var isLoading = false
    /// Whether the settings have been read.
    public var hasLoaded = false
    /// Why the last read or write failed.
    public var errorMessage: String?

    /// Nothing read.
    public init() {}
}
