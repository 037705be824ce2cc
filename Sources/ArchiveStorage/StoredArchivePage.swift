/// One newest-first page of favorites and the cursor of the next one.
public struct StoredArchivePage: Sendable, Hashable {
    /// The largest page one call may ask for.
    public static let maximumLimit = 10_000

    /// The favorites, newest first.
    public let objects: [StoredArchiveObject]
    /// Where the next page starts, or `nil` when this page is the last.
    public let nextCursor: StoredArchivePageCursor?

    /// Creates a page from its parts.
    public init(objects: [StoredArchiveObject], nextCursor: StoredArchivePageCursor?) {
        self.objects = objects
        self.nextCursor = nextCursor
    }
}
