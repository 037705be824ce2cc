/// Carries "this user's feed moved" between the processes that serve one storage, so that
/// every server's open event streams hear a push that landed on any of them. The SQLite
/// backend has none: it is one process by construction (``SyncBackend/feedBroadcast``).
public protocol FeedBroadcast: Sendable {
    /// Tells the other servers that `user`'s feed moved. Best effort and never waits for
    /// them: called after the change is committed, it must not hold up the answer.
    func announce(user: Int64)

    /// Listens until the task is cancelled, calling `moved` for each other server's
    /// announcement, and across a loss of the way to them: once it is back, `moved(.everyone)`,
    /// since what was announced in between may have been missed.
    func listen(_ moved: @escaping @Sendable (FeedMove) -> Void) async
}
