/// The users whose feed moves wait to be announced (``PostgresSyncStorage/announce(user:)``),
/// and whether a task is sending them.
struct Announcements: Sendable {
    var pending: Set<Int64> = []
    var flushing = false
}
