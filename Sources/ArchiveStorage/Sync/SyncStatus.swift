#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where this database stands with sync: when it last finished one, and how many changes
/// it has made since, which the next sync will send.
public struct SyncStatus: Sendable, Hashable {
    /// When the last sync finished (`nil`: this database never synced).
    public var lastSync: Date?
    /// The changes this database made (not received) since then.
    public var waiting: Int

    /// A status.
    public init(lastSync: Date?, waiting: Int) {
        self.lastSync = lastSync
        self.waiting = waiting
    }
}
