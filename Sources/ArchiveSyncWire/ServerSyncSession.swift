/// Two-way sync of a favorites database with a sync service (`archive sync --server URL`):
/// this device pulls what it has not seen of the user's feed, then pushes what the service
/// has not taken of its own, each by the one merge rule (``FavoriteMerge``).
///
/// Each pulled page is applied in one transaction with the cursor it reached, so a sync
/// stopped at any point resumes where it stopped; the service applies each push in one
/// transaction and ignores a push it already holds, so a push retried after a lost answer
/// changes nothing twice. What this sync just pulled is not pushed back.
public enum ServerSyncSession {
    /// Syncs `local` through `transport`: pages of at most `pageLimit` pulled changes and
    /// pushes of at most `pushLimit` changes. A push the service finds too large is split.
    public static func run(
        _ local: ArchiveDatabase, through transport: some SyncTransport,
        pageLimit: Int = SyncAPI.defaultMaximumPageSize, pushLimit: Int = SyncAPI.defaultMaximumPushChanges
    ) async throws -> SyncSession.Summary {
        // A push refused because the service dropped tombstones between this sync's pull and
        // its push (409): pull again, then push again, once.
        do {
            return try await once(local, through: transport, pageLimit: pageLimit, pushLimit: pushLimit)
        } catch SyncTransportError.refused(_, 409, _) {
            return try await once(local, through: transport, pageLimit: pageLimit, pushLimit: pushLimit)
        }
    }

    private static func once(
        _ local: ArchiveDatabase, through transport: some SyncTransport, pageLimit: Int, pushLimit: Int
    ) async throws -> SyncSession.Summary {
        let favorites = local.favorites
        let device = try favorites.deviceID()
        var summary = SyncSession.Summary()

        // 1. Pull: the feed's name first (a cursor belongs to one feed), then its pages.
        let probe = try await transport.pull(device: device, cursor: 0, limit: 0)
        guard let feed = DeviceID(hex: probe.feed) else { throw SyncTransportError.badAnswer(server: "the service", reason: "feed \(probe.feed.prefix(40)) is not 32 hexadecimal digits") }
        var cursor = try favorites.receivedCursor(from: feed)
        // This feed's end before the pull grows it: what tells a restored older copy (below).
        let latestBeforePull = try favorites.latestChangeSeq()
        var pulledSeqs: [ClosedRange<Int64>] = []
        while true {
            let page = try await transport.pull(device: device, cursor: cursor, limit: pageLimit)
            // A page that does not move the cursor, or holds more than asked, would make this
            // loop read for ever or without bound: the answer is refused instead.
            guard page.changes.count <= pageLimit, page.changes.isEmpty || page.cursor > cursor || page.reset else {
                throw SyncTransportError.badAnswer(server: "the service", reason: "a page of \(page.changes.count) changes from cursor \(cursor) to \(page.cursor): it does not move forward, or holds more than the \(pageLimit) asked")
            }
            guard page.feed == probe.feed else {
                throw SyncTransportError.badAnswer(server: "the service", reason: "the user's feed changed during the sync (the user was removed and added again); sync again")
            }
            let changes = try page.changes.enumerated().map { index, wire in
                do {
                    return try wire.change(index: index)
                } catch {
                    throw SyncTransportError.badAnswer(server: "the service", reason: "\(error)")
                }
            }
            let applied = try favorites.apply(changes, from: feed, through: page.cursor)
            summary.received.add(applied.summary)
            if let seqs = applied.seqs { pulledSeqs.append(seqs) }
            cursor = page.cursor
            // The service counts as pulled only the cursor a pull asks from (what this device
            // says it applied): after the last changes, one more pull, which finds nothing,
            // tells it so, and lets it drop the tombstones every device has applied.
            if page.changes.isEmpty { break }
        }

        // 2. Push this device's feed from where the service says it has it (from the start if
        // that was past this feed's end before the pull: this file is an older copy of itself,
        // and what the pull just added must not hide it).
        var from = probe.pushed
        if from > latestBeforePull { from = 0 }
        while true {
            let page = try favorites.changes(since: from, limit: pushLimit)
            if page.changes.isEmpty { break }
            let outgoing = page.changes.filter { change in !pulledSeqs.contains { $0.contains(change.seq) } }
            try await push(
                outgoing, through: page.lastSeq, seen: cursor, device: device, transport: transport,
                maximumBytes: probe.maximumPushBytes ?? SyncAPI.defaultMaximumBodyBytes, into: &summary.sent)
            from = page.lastSeq
            if !page.hasMore { break }
        }
        return summary
    }

    /// Pushes `changes` (with their seqs) in bodies of at most `maximumBytes` (the service's
    /// announced limit, by ``WireSize``'s bound), the last one recording `through`.
    private static func push(
        _ changes: [(seq: Int64, change: FavoriteChange)], through: Int64, seen: Int64, device: DeviceID, transport: some SyncTransport,
        maximumBytes: Int, into summary: inout ApplySummary
    ) async throws {
        var rest = changes[...]
        repeat {
            let count = WireSize.prefixFitting(rest.lazy.map(\.change), budget: maximumBytes)
            let batch = Array(rest.prefix(count))
            rest = rest.dropFirst(count)
            let reaches = rest.isEmpty ? through : batch.last?.seq ?? through
            try await push(batch, through: reaches, seen: seen, device: device, transport: transport, into: &summary)
        } while !rest.isEmpty
    }

    /// Pushes `changes` (with their seqs), splitting them while the service says a push is
    /// too large (a service whose limit is below what it announced, or that announced none).
    private static func push(
        _ changes: [(seq: Int64, change: FavoriteChange)], through: Int64, seen: Int64, device: DeviceID, transport: some SyncTransport,
        into summary: inout ApplySummary
    ) async throws {
        let request = SyncPushRequest(device: device, through: through, seen: seen, changes: changes.map { WireChange($0.change) })
        do {
            let answer = try await transport.push(request)
            summary.applied += answer.applied
            summary.superseded += answer.superseded
            summary.alreadyHeld += answer.alreadyHeld
        } catch SyncTransportError.tooLarge(let server, let message) {
            guard changes.count > 1 else { throw SyncTransportError.tooLarge(server: server, message: message + " (one change alone)") }
            let half = changes.count / 2
            try await push(Array(changes[..<half]), through: changes[half - 1].seq, seen: seen, device: device, transport: transport, into: &summary)
            try await push(Array(changes[half...]), through: through, seen: seen, device: device, transport: transport, into: &summary)
        }
    }
}
