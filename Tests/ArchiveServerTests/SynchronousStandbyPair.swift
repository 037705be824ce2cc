import Foundation
import TestSupport
import Testing

/// A PostgreSQL primary of the test's own with a streaming standby whose commits it waits
/// for (`synchronous_standby_names = '*'`: what the primary acknowledged, the standby has),
/// and a database `favorites` on it: what a failover test kills and promotes.
struct SynchronousStandbyPair {
    let primary: TestPostgres
    let standby: TestStandby

    init() throws {
        primary = try TestPostgres.dedicated()
        standby = try TestStandby(of: primary)
        let primary = self.primary
        _ = try primary.execute("ALTER SYSTEM SET synchronous_standby_names = '*'")
        _ = try primary.execute("SELECT pg_reload_conf()")
        #expect(Deadline.poll(every: .milliseconds(20)) { (try? primary.execute("SELECT sync_state FROM pg_stat_replication")) == "sync" }, "the standby never became synchronous")
        _ = try primary.execute("CREATE DATABASE favorites")
    }

    /// The IDs of `user`'s stored favorites, read on the standby directly (the new primary
    /// once it was promoted).
    func storedOnStandby(of user: String) throws -> Set<Int> {
        Set(try standby.execute(
            "SELECT f.id FROM user_favorites f JOIN users u ON u.id = f.user_id WHERE u.name = '\(user)' AND NOT f.removed", database: "favorites")
            .split(separator: "\n").compactMap { Int($0) })
    }
}
