import ArchiveFront

/// What handling a key asks the app loop to do.
enum TUICommand: Equatable, Sendable {
    /// Dispatch an action to the store.
    case dispatch(AppAction)
    /// Search for the query after a pause, unless it is edited again (`generation` tells).
    case scheduleSearch(generation: Int)
    /// Restore the terminal and exit.
    case quit
}
