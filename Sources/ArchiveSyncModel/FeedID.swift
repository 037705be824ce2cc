/// The random 128-bit name of a change feed: a user's feed on the service (renewed when a
/// backup is put back, so that every device starts it again), or a favorites database's
/// own feed, named after its device (``init(of:)``). A cursor belongs to one feed: a device
/// keeps how far it has read each feed by this name.
public struct FeedID: Sendable, Hashable, CustomStringConvertible {
    /// The 16 bytes, in order.
    public let bytes: [UInt8]

    /// The name made of `bytes`; `nil` unless there are exactly 16.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The name written as 32 hexadecimal digits (either case); `nil` for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 32, let bytes = Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    /// The feed of the database that `device` names: the changes it made or received.
    public init(of device: DeviceID) {
        bytes = device.bytes
    }

    /// A new name: 16 bytes from the system's secure generator.
    public static func random() -> FeedID {
        FeedID(of: DeviceID.random())
    }

    /// 32 lowercase hexadecimal digits.
    public var description: String {
        Hex.encode(bytes)
    }
}
