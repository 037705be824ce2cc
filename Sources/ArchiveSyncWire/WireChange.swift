public import ArchiveSyncModel

/// One change to one favorite on the wire: the favorite's state after it (its fields, or
/// `favorite` absent for a removal) and its stamp (hybrid logical time as one integer,
/// the device that made it as 32 hexadecimal digits). docs/SYNC-API.md.
public struct WireChange: Codable, Sendable, Hashable {
    /// The favorite's ID.
    public var id: Int
    /// The change's hybrid logical time (``HybridTimestamp/rawValue``).
    public var stamp: Int64
    /// The device that made the change, 32 lowercase hexadecimal digits.
    public var device: String
    /// The favorite's fields when the change stores it; absent when it removes it.
    public var favorite: WireFavorite?

    /// `change` on the wire.
    public init(_ change: FavoriteChange) {
        id = change.id
        stamp = change.stamp.time.rawValue
        device = change.stamp.device.description
        switch change.state {
        case .stored(let object): favorite = WireFavorite(object)
        case .removed: favorite = nil
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, stamp, device, favorite
    }

    /// Decodes a change, saying which number is out of range rather than "not valid JSON".
    /// A change of these fields, as read from the wire.
    package init(id: Int, stamp: Int64, device: String, favorite: WireFavorite?) {
        self.id = id
        self.stamp = stamp
        self.device = device
        self.favorite = favorite
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeWhole(Int.self, forKey: .id)
        stamp = try container.decodeWhole(Int64.self, forKey: .stamp)
        device = try container.decode(String.self, forKey: .device)
        favorite = try container.decodeIfPresent(WireFavorite.self, forKey: .favorite)
    }

    /// The change this describes, checked as every side checks a change
    /// (``FavoriteChange/check()``, the sync core's one check: a positive ID, a stamp in
    /// range, the fields within the favorites' rules), and a device ID of 32 hexadecimal
    /// digits. Throws ``SyncWireError/invalidChange(index:id:reason:)`` saying what is wrong.
    public func change(index: Int) throws(SyncWireError) -> FavoriteChange {
        guard let deviceID = DeviceID(hex: device) else {
            throw .invalidChange(index: index, id: id, reason: "device must be 32 hexadecimal digits")
        }
        let stamp = ChangeStamp(time: HybridTimestamp(rawValue: stamp), device: deviceID)
        let change = FavoriteChange(id: id, stamp: stamp, state: favorite.map { .stored($0.object(id: id)) } ?? .removed)
        do {
            try change.check()
        } catch {
            throw .invalidChange(index: index, id: id, reason: error.reason)
        }
        return change
    }
}

extension WireChange: WireJSONDecodable {
    /// An array of changes by ``WireJSONReader``'s subset.
    static func readList(_ reader: inout WireJSONReader) -> [WireChange]? {
        var list: [WireChange] = []
        let read = reader.array { reader in
            guard let change = WireChange.read(&reader) else { return false }
            list.append(change)
            return true
        }
        return read ? list : nil
    }

    /// A change by ``WireJSONReader``'s subset: `id`, `stamp` and `device` required,
    /// `favorite` absent or null for a removal.
    package static func read(_ reader: inout WireJSONReader) -> WireChange? {
        var id: Int64?, stamp: Int64?, device: String?, favorite: WireFavorite?
        let read = WireJSON.members(&reader, ["id", "stamp", "device", "favorite"]) { reader, key in
            switch key {
            case 0: id = reader.integer(); return id != nil
            case 1: stamp = reader.integer(); return stamp != nil
            case 2: device = reader.string(); return device != nil
            default:
                if reader.null() { return true }
                favorite = WireFavorite.read(&reader)
                return favorite != nil
            }
        }
        guard read, let id, let stamp, let device, let id = Int(exactly: id) else { return nil }
        return WireChange(id: id, stamp: stamp, device: device, favorite: favorite)
    }
}
