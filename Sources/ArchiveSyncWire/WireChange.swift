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
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeWhole(Int.self, forKey: .id)
        stamp = try container.decodeWhole(Int64.self, forKey: .stamp)
        device = try container.decode(String.self, forKey: .device)
        favorite = try container.decodeIfPresent(WireFavorite.self, forKey: .favorite)
    }

    /// The change this describes, checked as every path that applies a change checks it:
    /// a positive ID, a stamp in range, a device ID, the fields within the engine's rules.
    /// Throws ``SyncWireError/invalidChange(index:id:reason:)`` saying what is wrong.
    public func change(index: Int) throws(SyncWireError) -> FavoriteChange {
        func invalid(_ reason: String) -> SyncWireError { .invalidChange(index: index, id: id, reason: reason) }
        guard id > 0 else { throw invalid("the ID must be a positive integer") }
        let time = HybridTimestamp(rawValue: stamp)
        guard time.isValid else {
            throw invalid("stamp \(stamp) is out of range (0 to \(HybridTimestamp(milliseconds: HybridTimestamp.maximumMilliseconds, counter: 0xFFFF).rawValue))")
        }
        guard let deviceID = DeviceID(hex: device) else { throw invalid("device must be 32 hexadecimal digits") }
        let state: FavoriteChange.State
        if let favorite {
            let object = favorite.object(id: id)
            do {
                try object.validate()
            } catch {
                throw invalid("\(error)")
            }
            state = .stored(object)
        } else {
            state = .removed
        }
        return FavoriteChange(id: id, stamp: ChangeStamp(time: time, device: deviceID), state: state)
    }
}
