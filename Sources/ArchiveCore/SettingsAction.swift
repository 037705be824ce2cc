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
    /// Remember the Archive screen's current search conditions (from the state):
    /// the fronts dispatch it when the user leaves (the CLI after its search, the TUI
    /// on quitting), not at every search, which would cost a write per keystroke.
    case rememberSearch
    /// Reading, setting or resetting failed.
    case failure(message: String)
}
