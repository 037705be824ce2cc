/// The kind of a SQLite transaction (`BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE`).
public enum TransactionKind: String, Sendable {
    /// Takes locks only when first needed: for reads.
    case deferred = "DEFERRED"
    /// Takes the write lock at once, waiting up to the busy timeout: for every write,
    /// so that two writers queue up instead of failing with `SQLITE_BUSY` mid-way.
    case immediate = "IMMEDIATE"
    /// Like immediate; in WAL mode identical to it.
    case exclusive = "EXCLUSIVE"

    /// The statement that opens a transaction of this kind.
    var beginSQL: String {
        switch self {
        case .deferred: "BEGIN DEFERRED TRANSACTION"
        case .immediate: "BEGIN IMMEDIATE TRANSACTION"
        case .exclusive: "BEGIN EXCLUSIVE TRANSACTION"
        }
    }
}
