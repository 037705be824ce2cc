/// What a ``FeedBroadcast`` heard.
public enum FeedMove: Sendable, Hashable {
    /// This user's feed moved.
    case user(Int64)
    /// Any feed may have moved (announcements may have been missed): every stream reads again.
    case everyone
}
