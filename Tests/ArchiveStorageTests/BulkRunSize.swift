@testable import ArchiveStorage
import Testing

/// Runs a test with bulk stores cut into runs of `size` favorites instead of 4,096
/// (``SearchRunStore/bulkRunSizeOverride``): the same paths (several runs, the in-memory
/// merge, a refusal midway) on a few thousand favorites, not tens of thousands through the
/// debug build's run builder.
struct BulkRunSize: TestTrait, TestScoping {
    let size: Int

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await SearchRunStore.$bulkRunSizeOverride.withValue(size) { try await function() }
    }
}

extension Trait where Self == BulkRunSize {
    /// Bulk stores cut into runs of `size` favorites for this test.
    static func bulkRuns(of size: Int) -> Self { BulkRunSize(size: size) }
}
