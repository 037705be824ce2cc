/// The random 128-bit identity of one favorites database (one device): created by the
/// migration that added sync, kept in the `deviceID` setting, carried by every change the
/// database makes. Compared as bytes, which breaks ties between equal stamps (``ChangeStamp``).
public struct DeviceID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 16 bytes, in order.
    public let bytes: [UInt8]

    /// The identity made of `bytes`; `nil` unless there are exactly 16.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A new identity: 16 bytes from the system's secure generator (a browser signed in by a
    /// link gets one; a database's own is made by its migration).
    public static func random() -> DeviceID {
        var generator = SystemRandomNumberGenerator()
        return DeviceID(checked: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    private init(checked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The identity written as 32 hexadecimal digits (either case); `nil` for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 32, let bytes = Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    /// 32 lowercase hexadecimal digits.
    public var description: String {
        Hex.encode(bytes)
    }

    /// Byte by byte.
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
