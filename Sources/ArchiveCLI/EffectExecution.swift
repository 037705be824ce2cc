import ArchiveFront

/// Where the stores of this process run their effects: set once by ``ArchiveMain`` before
/// the command runs (the main thread, for the short commands), read by the requests that
/// make a store.
@MainActor
enum EffectExecution {
    /// The executor effects prefer; `nil`: the runtime's global executor.
    static var preferred: (any TaskExecutor)?
}
