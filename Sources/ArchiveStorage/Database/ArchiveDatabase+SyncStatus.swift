#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension ArchiveDatabase {
    /// Records that a sync finished at `date`: the `lastSync` setting, and this
    /// database's feed's end, from which ``syncStatus()`` counts the changes waiting.
    public func recordSync(at date: Date) throws {
        try settings.recordSync(at: date, seq: try favorites.latestChangeSeq())
    }

    /// When this database last finished a sync, and how many changes it made since.
    public func syncStatus() throws -> SyncStatus {
        let record = try settings.lastSyncRecord()
        return SyncStatus(lastSync: record.date, waiting: try favorites.localChangeCount(since: record.seq))
    }
}
