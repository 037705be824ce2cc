public import ArchiveSyncWire
public import ArchiveStorage
import ArchiveSyncModel

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
    /// At most `maximumChanges` pulled changes are applied: a service with more (or one that
    /// sends new ones for ever) stops the sync with ``SyncTransportError/tooManyChanges(server:limit:applied:)``,
    /// what was applied kept with its cursor, so the next sync goes on from there.
    /// `progress`, when given, hears how far each half has come after each page.
    public static func run(
        _ local: ArchiveDatabase, through transport: some SyncTransport,
        pageLimit: Int = SyncAPI.defaultMaximumPageSize, pushLimit: Int = SyncAPI.defaultMaximumPushChanges,
        maximumChanges: Int = SyncAPI.defaultMaximumChangesPerSync, progress: (@Sendable (SyncProgress) -> Void)? = nil
    ) async throws -> SyncSession.Summary {
        let limits = Limits(page: max(1, pageLimit), push: max(1, pushLimit), changes: max(1, maximumChanges))
        let report = progress ?? { _ in }
        // A push refused because the service dropped tombstones between this sync's pull and
        // its push (409): pull again, then push again, once. What the first attempt pulled and
        // committed, and the pushes the service acknowledged, are this sync's too: the second
        // attempt adds to the same account, and does not push back what either pulled.
        var attempt = Attempt()
        do {
            try await once(local, through: transport, limits: limits, progress: report, into: &attempt)
        } catch SyncTransportError.refused(_, 409, _) {
            try await once(local, through: transport, limits: limits, progress: report, into: &attempt)
        }
        return attempt.summary
    }

    /// What a sync has done so far, across its attempts.
    private struct Attempt {
        /// What it received and sent.
        var summary = SyncSession.Summary()
        /// The seqs, in this device's feed, of the changes it pulled: never pushed back.
        var pulledSeqs: [ClosedRange<Int64>] = []
    }

    private struct Limits {
        let page: Int
        let push: Int
        let changes: Int
    }

    private static func once(
        _ local: ArchiveDatabase, through transport: some SyncTransport, limits: Limits, progress: @Sendable (SyncProgress) -> Void,
        into attempt: inout Attempt
    ) async throws {
        let favorites = local.favorites
        let device = try favorites.deviceID()
        func bad(_ reason: String) -> SyncTransportError { .badAnswer(server: "the service", reason: reason) }

        // 1. Pull: the feed's name first (a cursor belongs to one feed), then its pages.
        let probe = try await transport.pull(device: device, cursor: 0, limit: 0)
        guard let feed = FeedID(hex: probe.feed) else { throw bad("feed \(probe.feed.prefix(40)) is not 32 hexadecimal digits") }
        var cursor = try favorites.receivedCursor(from: feed)
        // This feed's end before the pull grows it: what tells a restored older copy (below).
        let latestBeforePull = try favorites.latestChangeSeq()
        // Every page must move the cursor forward, but for one `reset` (the service's file
        // restored from an older copy: the feed read again from its start), so that no
        // answer makes this loop read for ever; and at most `limits.changes` are taken.
        var resetTaken = false
        var taken = 0
        // The feed's end when the sync began (`end`; a service older than it: the probe's
        // cursor, which is that end only when the whole feed was pulled already): how far
        // the pull goes.
        let pullStart = cursor
        let pullEnd = probe.end ?? probe.cursor
        progress(SyncProgress(phase: .receiving, done: 0, total: max(0, pullEnd - pullStart)))
        while true {
            let room = limits.changes - taken
            let page = try await transport.pull(device: device, cursor: cursor, limit: min(limits.page, max(room, 1)))
            guard page.changes.count <= limits.page else {
                throw bad("a page of \(page.changes.count) changes, more than the \(limits.page) asked")
            }
            guard page.changes.isEmpty || page.cursor > cursor || (page.reset && !resetTaken) else {
                throw bad("a page of \(page.changes.count) changes from cursor \(cursor) to \(page.cursor)\(page.reset ? ", a second reset" : ""): it does not move forward")
            }
            guard page.cursor >= 0 else { throw bad("a negative cursor \(page.cursor)") }
            guard page.feed == probe.feed else {
                throw bad("the user's feed changed during the sync (the user was removed and added again); sync again")
            }
            // A page past the bound is not applied: what was applied before it is kept.
            guard page.changes.count <= room else {
                throw SyncTransportError.tooManyChanges(server: "the service", limit: limits.changes, applied: taken)
            }
            if page.reset && !page.changes.isEmpty { resetTaken = true }
            let changes = try page.changes.enumerated().map { index, wire in
                do {
                    return try wire.change(index: index)
                } catch {
                    throw bad("\(error)")
                }
            }
            let applied = try favorites.apply(changes, from: feed, through: page.cursor)
            attempt.summary.received.add(applied.summary)
            if let seqs = applied.seqs { attempt.pulledSeqs.append(seqs) }
            taken += page.changes.count
            cursor = page.cursor
            progress(SyncProgress(phase: .receiving, done: max(0, cursor - pullStart), total: max(cursor, pullEnd) - pullStart))
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
        let pushStart = from, pushEnd = try favorites.latestChangeSeq()
        // What this sync pulled is the service's already: neither read again nor sent. (A
        // new device's first pull of N favorites read all N back from its file, and told the
        // service how far it had come in N / 1,000 pushes of nothing.)
        let pulled = attempt.pulledSeqs
        func ownChanges(after lower: Int64, through upper: Int64) -> Int64 {
            max(0, upper - lower) - pulled.reduce(0) { sum, seqs in sum + max(0, min(seqs.upperBound, upper) - max(seqs.lowerBound, lower + 1) + 1) }
        }
        var total = ownChanges(after: pushStart, through: pushEnd)
        progress(SyncProgress(phase: .sending, done: 0, total: total))
        var told = from
        while true {
            while let skipped = pulled.first(where: { $0.contains(from + 1) }) { from = skipped.upperBound }
            let page = try favorites.changes(since: from, limit: limits.push)
            if page.changes.isEmpty { break }
            let outgoing = page.changes.filter { change in !pulled.contains { $0.contains(change.seq) } }
            try await push(
                outgoing, through: page.lastSeq, seen: cursor, device: device, transport: transport,
                maximumBytes: probe.maximumPushBytes ?? SyncAPI.defaultMaximumBodyBytes, into: &attempt.summary.sent)
            from = page.lastSeq
            told = from
            let done = ownChanges(after: pushStart, through: from)
            total = max(total, done)
            progress(SyncProgress(phase: .sending, done: done, total: total))
            if !page.hasMore { break }
        }
        // Pulled changes skipped at the end: the service is told once how far this feed is
        // its own already (a push of no changes), so that the next sync starts past them.
        if from > told {
            try await push(
                [], through: from, seen: cursor, device: device, transport: transport,
                maximumBytes: probe.maximumPushBytes ?? SyncAPI.defaultMaximumBodyBytes, into: &attempt.summary.sent)
        }
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
            // The counts are printed: they must be counts of this push's changes.
            let counts = [answer.applied, answer.superseded, answer.alreadyHeld]
            guard counts.allSatisfy({ (0...changes.count).contains($0) }), counts.reduce(0, +) == changes.count else {
                throw SyncTransportError.badAnswer(
                    server: "the service",
                    reason: "a push of \(changes.count) changes answered as \(answer.applied) applied, \(answer.superseded) superseded and \(answer.alreadyHeld) already held")
            }
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
