/// When and where a change to a favorite was made: its ``HybridTimestamp`` and the
/// ``DeviceID`` of the database that made it. Ordered by time, then device, so that
/// two changes from different devices are never equal.
public struct ChangeStamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The hybrid logical clock's reading.
    public let time: HybridTimestamp
    /// The device that made the change.
    public let device: DeviceID

    /// A stamp of `time` on `device`.
    public init(time: HybridTimestamp, device: DeviceID) {
        self.time = time
        self.device = device
    }

    public static func < (lhs: ChangeStamp, rhs: ChangeStamp) -> Bool {
        (lhs.time, lhs.device) < (rhs.time, rhs.device)
    }

    /// `milliseconds.counter@device`.
    public var description: String { "\(time)@\(device)" }
}
