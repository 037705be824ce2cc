/// How a ``Database`` connection is opened and set up.
public struct Configuration: Sendable, Hashable {
    /// How hard SQLite syncs to disk on commit (`PRAGMA synchronous`).
    public enum Synchronous: String, Sendable, Hashable {
        /// Syncs at WAL checkpoints only: a power cut may lose the last commits, never corrupts.
        /// For work whose commits nobody is told about (a benchmark's scratch file).
        case normal = "NORMAL"
        /// Syncs the WAL on every commit, before the commit returns: a commit that returned
        /// survives a power cut (docs/ARCHITECTURE.md, "Durability").
        case full = "FULL"
    }

    /// The sync level; `.full` by default: every front acknowledges a change (a heart, a
    /// push's 200) once its commit has returned, so a commit must be on disk by then.
    public var synchronous: Synchronous = .full
    /// How long a connection waits for another one's lock before failing with ``ResultCode/busy``.
    public var busyTimeout: Duration = .seconds(5)
    /// Whether foreign keys are enforced (`PRAGMA foreign_keys`). On by default.
    public var foreignKeys = true
    /// Whether a file database uses write-ahead logging. On by default; ignored for `:memory:`.
    public var walMode = true
    /// Opens the file read-only: nothing is created, migrated or written.
    public var readOnly = false
    /// Whether the file's schema is trusted. `false` for a file another person or program
    /// may have made (a peer database from a USB stick): SQLite's defensive mode is on and
    /// its views and triggers may call no function with side effects (`trusted_schema`).
    public var trustsSchema = true
    /// At most how many of SQLite's virtual-machine instructions one step of a statement
    /// may take (``ResultCode/interrupt`` past it), or `nil` for no bound: for a file whose
    /// views or triggers may never end.
    public var workLimit: Int?

    /// The SQLite VFS (`sqlite3_vfs_register`'d name) the file is opened through, or `nil`
    /// for SQLite's default: for tests that cut the power at every write (a VFS that
    /// records what no sync made durable).
    public var vfsName: String?

    /// The defaults: WAL, `synchronous=FULL`, foreign keys on, 5 s busy timeout.
    public init() {}

    /// The busy timeout in whole milliseconds, clamped to what SQLite accepts.
    var busyTimeoutMilliseconds: Int32 {
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, milliseconds))
    }
}
