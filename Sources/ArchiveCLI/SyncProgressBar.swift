import ArchiveFront
import Synchronization

/// A ``ProgressBar`` a sync's progress reports reach from the store's effect task: drawn
/// only when stderr is a terminal, as import's; one line per half of the sync.
final class SyncProgressBar: Sendable {
    private let bar = Mutex(ProgressBar())

    /// Draws `progress` (nothing to draw: a half with nothing to move).
    func report(_ progress: SyncProgress) {
        guard progress.total > 0 else { return }
        let label = progress.phase == .receiving ? "receiving \(progress.done) of \(progress.total)" : "sending \(progress.done) of \(progress.total)"
        bar.withLock { $0.update(fraction: progress.fraction, label: label) }
    }

    /// Ends the bar's line.
    func finish() {
        bar.withLock { $0.finish() }
    }
}
