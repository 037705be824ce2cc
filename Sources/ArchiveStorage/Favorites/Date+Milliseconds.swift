#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension Date {
    /// Unix time in whole milliseconds, as the database stores it.
    public var millisecondsSince1970: Int64 {
        let value = (timeIntervalSince1970 * 1000).rounded()
        return Int64(exactly: value) ?? (value < 0 ? .min : .max)
    }

    /// The date `milliseconds` after 1970-01-01T00:00:00Z.
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
