/// `GET /v1/sync/pull?device=D&cursor=C&limit=L`: a page of the user's change feed.
public struct SyncPullResponse: Codable, Sendable, Hashable {
    /// The user's feed, 32 hexadecimal digits: keep `cursor` under it (a new feed, after
    /// the user was removed and added again, is read from its start).
    public var feed: String
    /// The changes after the cursor asked, in feed order.
    public var changes: [WireChange]
    /// Where the next pull starts.
    public var cursor: Int64
    /// Whether more changes follow: pull again from `cursor`.
    public var hasMore: Bool
    /// Whether the cursor asked was past the feed's end (the server's database was
    /// restored from an older copy): the page starts from the beginning instead.
    public var reset: Bool
    /// How far the server has taken this device's own feed: push from after it.
    public var pushed: Int64
    /// The largest push body the service takes, in bytes (its `--max-body-bytes`): the
    /// client cuts its pushes to fit (absent from a service older than this field:
    /// ``SyncAPI/defaultMaximumBodyBytes``).
    public var maximumPushBytes: Int?
    /// The feed's end when the page was read (its latest position): how far a pull that
    /// goes on from here reaches, for a progress bar (absent from a service older than this
    /// field; a pull of `limit=0` still says it).
    public var end: Int64?

    /// A page of `feed`.
    public init(
        feed: String, changes: [WireChange], cursor: Int64, hasMore: Bool, reset: Bool, pushed: Int64, maximumPushBytes: Int? = nil, end: Int64? = nil
    ) {
        self.end = end
        self.feed = feed
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
        self.reset = reset
        self.pushed = pushed
        self.maximumPushBytes = maximumPushBytes
    }

    private enum CodingKeys: String, CodingKey {
        case feed, changes, cursor, hasMore, reset, pushed, maximumPushBytes, end
    }

    /// Decodes a page, saying which number is out of range rather than "not valid JSON".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        feed = try container.decode(String.self, forKey: .feed)
        changes = try container.decode([WireChange].self, forKey: .changes)
        cursor = try container.decodeWhole(Int64.self, forKey: .cursor)
        hasMore = try container.decode(Bool.self, forKey: .hasMore)
        reset = try container.decode(Bool.self, forKey: .reset)
        pushed = try container.decodeWhole(Int64.self, forKey: .pushed)
        maximumPushBytes = try container.decodeWholeIfPresent(Int.self, forKey: .maximumPushBytes)
        end = try container.decodeWholeIfPresent(Int64.self, forKey: .end)
    }
}

extension SyncPullResponse: WireJSONDecodable {
    /// A page by ``WireJSONReader``'s subset (`maximumPushBytes` and `end` absent or null: none).
    package static func read(_ reader: inout WireJSONReader) -> SyncPullResponse? {
        var feed: String?, changes: [WireChange]?, cursor: Int64?, hasMore: Bool?, reset: Bool?, pushed: Int64?, maximum: Int64?, end: Int64?
        let read = WireJSON.members(&reader, ["feed", "changes", "cursor", "hasMore", "reset", "pushed", "maximumPushBytes", "end"]) { reader, key in
            switch key {
            case 0: feed = reader.string(); return feed != nil
            case 1:
                changes = WireChange.readList(&reader)
                return changes != nil
            case 2: cursor = reader.integer(); return cursor != nil
            case 3: hasMore = reader.bool(); return hasMore != nil
            case 4: reset = reader.bool(); return reset != nil
            case 5: pushed = reader.integer(); return pushed != nil
            case 6:
                if reader.null() { return true }
                maximum = reader.integer()
                return maximum != nil
            default:
                if reader.null() { return true }
                end = reader.integer()
                return end != nil
            }
        }
        guard read, let feed, let changes, let cursor, let hasMore, let reset, let pushed else { return nil }
        let maximumPushBytes: Int?
        if let maximum {
            guard let fits = Int(exactly: maximum) else { return nil }
            maximumPushBytes = fits
        } else {
            maximumPushBytes = nil
        }
        return SyncPullResponse(
            feed: feed, changes: changes, cursor: cursor, hasMore: hasMore, reset: reset, pushed: pushed, maximumPushBytes: maximumPushBytes, end: end)
    }
}
