public import ArchiveSyncModel

/// `POST /v1/sync/push`: a device's changes, for the server to merge into the user's favorites.
public struct SyncPushRequest: Codable, Sendable, Hashable {
    /// The pushing device's ID, 32 hexadecimal digits.
    public var device: String
    /// How far the device's own change feed this batch reaches (its last seq): the server
    /// keeps it, and answers it as `pushed` so that the device resumes from there.
    public var through: Int64
    /// How far the device had pulled the user's feed when it made this batch (the `cursor`
    /// of its last pull): a batch made before the device could know of a tombstone the
    /// service has since dropped is refused (409), so a late or replayed push cannot bring
    /// a removed favorite back.
    public var seen: Int64
    /// The changes, at most one per favorite.
    public var changes: [WireChange]

    /// A push of `changes` by `device`, reaching seq `through` of its feed, made after
    /// pulling the user's feed to `seen`.
    public init(device: DeviceID, through: Int64, seen: Int64, changes: [WireChange]) {
        self.device = device.description
        self.through = through
        self.seen = seen
        self.changes = changes
    }

    private enum CodingKeys: String, CodingKey {
        case device, through, seen, changes
    }

    /// Decodes a push, saying which number is out of range rather than "not valid JSON".
    /// A push of these fields, as read from the wire.
    package init(device: String, through: Int64, seen: Int64, wireChanges changes: [WireChange]) {
        self.device = device
        self.through = through
        self.seen = seen
        self.changes = changes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        device = try container.decode(String.self, forKey: .device)
        through = try container.decodeWhole(Int64.self, forKey: .through)
        seen = try container.decodeWhole(Int64.self, forKey: .seen)
        changes = try container.decode([WireChange].self, forKey: .changes)
    }

    /// The changes, checked: each valid (``WireChange/change(index:)``), none stamped more
    /// than ``HybridTimestamp/maximumLead`` ahead of `now` (the receiver's wall clock, Unix
    /// milliseconds), no ID twice.
    public func checkedChanges(receivedAt now: Int64) throws(SyncWireError) -> [FavoriteChange] {
        var seen: [Int: Int] = [:]
        var result: [FavoriteChange] = []
        result.reserveCapacity(changes.count)
        for (index, wire) in changes.enumerated() {
            if let first = seen.updateValue(index, forKey: wire.id) {
                throw .duplicateID(id: wire.id, first: first, second: index)
            }
            let change = try wire.change(index: index)
            let lead = change.stamp.time.lead(over: now)
            guard lead <= HybridTimestamp.maximumLead else { throw .stampAhead(index: index, id: wire.id, device: wire.device, ahead: lead) }
            result.append(change)
        }
        return result
    }
}

extension SyncPushRequest: WireJSONDecodable {
    /// A push by ``WireJSONReader``'s subset.
    package static func read(_ reader: inout WireJSONReader) -> SyncPushRequest? {
        var device: String?, through: Int64?, seen: Int64?, changes: [WireChange]?
        let read = WireJSON.members(&reader, ["device", "through", "seen", "changes"]) { reader, key in
            switch key {
            case 0: device = reader.string(); return device != nil
            case 1: through = reader.integer(); return through != nil
            case 2: seen = reader.integer(); return seen != nil
            default:
                changes = WireChange.readList(&reader)
                return changes != nil
            }
        }
        guard read, let device, let through, let seen, let changes else { return nil }
        return SyncPushRequest(device: device, through: through, seen: seen, wireChanges: changes)
    }
}
