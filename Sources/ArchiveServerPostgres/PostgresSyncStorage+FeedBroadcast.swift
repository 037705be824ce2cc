public import ArchiveServerStorage
import ArchiveSyncModel
import Logging
import PostgresNIO
import Synchronization

/// The servers of one PostgreSQL tell each other of feed moves with `NOTIFY` on one
/// channel, each listening on a connection of its own (docs/SCALING.md, step 2).
///
/// Announcing never waits: the user joins a set, and one task at a time sends what the set
/// holds (`pg_notify`, after the push's commit, through the pool), so a burst of pushes is
/// one statement, not one each; one that fails is sent again. A payload is `INSTANCE USER,USER,…`; a listener skips its
/// own instance's (its streams were told at once). The listener reconnects after any loss
/// (a restarted PostgreSQL, a failover, a cut connection, found within
/// ``listenerPingInterval`` by a `SELECT 1`) and, once listening again, tells every stream
/// to read again: a notification sent meanwhile was missed, and a page must not stay stale.
extension PostgresSyncStorage: FeedBroadcast {
    /// The channel of the announcements.
    static let feedChannel = "archive_feed"
    /// The longest payload sent (PostgreSQL takes under 8,000 bytes).
    static let maximumPayloadBytes = 7_900
    /// How often an idle listener checks that its connection still answers.
    static let listenerPingInterval: Duration = .seconds(10)
    /// The longest wait between two attempts to listen again.
    static let longestReconnectDelay: Duration = .seconds(5)

    public var feedBroadcast: (any FeedBroadcast)? { self }

    public func announce(user: Int64) {
        let start = announcements.withLock { state in
            state.pending.insert(user)
            guard !state.flushing else { return false }
            state.flushing = true
            return true
        }
        if start { Task { await self.flushAnnouncements() } }
    }

    /// Sends what waits, until nothing does. An announcement that fails (its connection cut
    /// under it, PostgreSQL gone a moment) is sent again, with the users announced since,
    /// after 250 ms, then twice as long each time up to ``longestReconnectDelay``; after
    /// ``announcementRetryLimit`` of failures it is given up (the other servers' listeners,
    /// which lost PostgreSQL too if it is gone, tell their streams to read again when they
    /// listen again).
    private func flushAnnouncements() async {
        var delay: Duration = .milliseconds(250)
        var failingSince: ContinuousClock.Instant?
        while true {
            let users: [Int64] = announcements.withLock { state in
                let users = state.pending.sorted()
                state.pending = []
                if users.isEmpty { state.flushing = false }
                return users
            }
            guard !users.isEmpty else { return }
            var failure: (any Error)?
            for payload in Self.payloads(of: users, from: instance) {
                do {
                    try await client.query("SELECT pg_notify(\(Self.feedChannel), \(payload))", logger: logger)
                } catch {
                    failure = PostgresStorageError.wrapping(error, while: "announcing a feed move")
                    break
                }
            }
            guard let failure else {
                (delay, failingSince) = (.milliseconds(250), nil)
                continue
            }
            let since = failingSince ?? .now
            failingSince = since
            guard ContinuousClock.now - since < Self.announcementRetryLimit else {
                logger.warning("cannot tell the other servers that a feed moved (\(failure)); given up after \(Self.announcementRetryLimit)")
                (delay, failingSince) = (.milliseconds(250), nil)
                continue
            }
            // Again, every user of this round (one announced twice costs a page a read).
            announcements.withLock { state in state.pending.formUnion(users) }
            logger.warning("cannot tell the other servers that a feed moved (\(failure)); announcing again in \(delay)")
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, Self.longestReconnectDelay)
        }
    }

    /// How long a failing announcement is tried again before it is given up.
    static let announcementRetryLimit: Duration = .seconds(60)

    /// The payloads announcing `users` from `instance`, each within ``maximumPayloadBytes``.
    static func payloads(of users: [Int64], from instance: String) -> [String] {
        var payloads: [String] = [], current = ""
        for user in users {
            let item = String(user)
            if !current.isEmpty, current.utf8.count + 1 + item.utf8.count > maximumPayloadBytes {
                payloads.append(current)
                current = ""
            }
            current += current.isEmpty ? "\(instance) \(item)" : ",\(item)"
        }
        if !current.isEmpty { payloads.append(current) }
        return payloads
    }

    /// The users a payload of another instance announces (none for this instance's own,
    /// or for one that is not an announcement).
    static func users(in payload: String, skipping instance: String) -> [Int64] {
        let parts = payload.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] != instance else { return [] }
        return parts[1].split(separator: ",").compactMap { Int64($0) }
    }

    public func listen(_ moved: @escaping @Sendable (FeedMove) -> Void) async {
        var delay: Duration = .milliseconds(250)
        var lost = false
        let instance = self.instance, logger = self.logger
        while !Task.isCancelled {
            do {
                var configuration = eventsLocation.connectionConfiguration
                configuration.options.additionalStartupParameters.append(("application_name", "archive-server events"))
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: Self.feedChannel) { notifications in
                    // Listening: whatever was announced while this server was not is read again.
                    if lost { logger.notice("listening to the other servers' feed moves again") }
                    moved(.everyone)
                    delay = .milliseconds(250)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await notification in notifications {
                                for user in Self.users(in: notification.payload, skipping: instance) { moved(.user(user)) }
                            }
                            throw PostgresStorageError.database(what: "listening to feed moves", reason: "the connection ended")
                        }
                        group.addTask {
                            while true {
                                try await Task.sleep(for: Self.listenerPingInterval)
                                try await connection.query("SELECT 1", logger: logger)
                            }
                        }
                        defer { group.cancelAll() }
                        try await group.next()
                    }
                }
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                lost = true
                logger.warning("lost the other servers' feed moves (\(PostgresStorageError.wrapping(error, while: "listening to feed moves"))): listening again in \(delay)")
            }
            do {
                try await Task.sleep(for: delay)
            } catch {
                return
            }
            delay = min(delay * 2, Self.longestReconnectDelay)
        }
    }
}
