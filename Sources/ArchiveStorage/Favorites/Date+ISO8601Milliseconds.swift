#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension Date {
    /// The date as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, milliseconds), as exports and JSON output write it.
    public var iso8601Milliseconds: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        ISO8601Milliseconds.append(millisecondsSince1970, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
