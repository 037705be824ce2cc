/// Applies ``SyncAction``s to ``SyncState``: pure.
public enum SyncReducer {
    /// Applies `action`.
    public static func reduce(_ state: inout SyncState, _ action: SyncAction) {
        switch action {
        case .start(let peer):
            state.isSyncing = true
            state.peer = peer
            state.lastSummary = nil
            state.errorMessage = nil
        case .finished(let peer, let summary):
            state.isSyncing = false
            state.peer = peer
            state.lastSummary = summary
        case .failed(let peer, let message):
            state.isSyncing = false
            state.peer = peer
            state.errorMessage = message
        case .refreshStatus:
            break
        case .status(let status):
            state.status = status
        }
    }
}
