/// Applies ``SyncAction``s to ``SyncState``: pure.
public enum SyncReducer {
    /// Applies `action`.
    public static func reduce(_ state: inout SyncState, _ action: SyncAction) {
        switch action {
        case .start(let path):
            state.isSyncing = true
            state.peerPath = path
            state.lastSummary = nil
            state.errorMessage = nil
        case .finished(let path, let summary):
            state.isSyncing = false
            state.peerPath = path
            state.lastSummary = summary
        case .failed(let path, let message):
            state.isSyncing = false
            state.peerPath = path
            state.errorMessage = message
        }
    }
}
