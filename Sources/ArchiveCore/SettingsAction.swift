public import ArchiveStorage

/// What can happen to the settings.
public enum SettingsAction: Sendable, Equatable {
    /// Read every setting and the last search.
    case load
    /// Every setting and the last search, as just read.
    case loaded([SettingEntry], lastSearch: LastSearch)
    /// Set `key` from the text `value`, parsed as the key's type.
    case set(key: String, value: String)
    /// Forget `key`'s value, so it reads as its default.
    case reset(key: String)
    /// Remember the view that is open (the TUI dispatches it as the user switches).
    case rememberView(ArchiveView)
    /// Reading, setting or resetting failed.
    case failure(message: String)
}
