#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import ArchiveSyncModel

extension Date {
    /// The date as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, milliseconds), as exports and JSON output write it.
    public var iso8601Milliseconds: String {
        ISO8601Milliseconds.string(millisecondsSince1970)
    }
}
