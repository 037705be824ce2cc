#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import ArchiveSyncModel

/// A push's changes as the columns PostgreSQL's merge binds (one array a column, `unnest`ed
/// in the statement), and the merge statement's fixed parts: both ways a push is applied
/// (in one statement, or in a transaction step by step) build their `INSERT` from these, so
/// that the merge rule is written once in SQL (and proven equal to ``FavoriteMerge`` by
/// `MergeDifferentialTests`).
package struct PostgresMergeBatch {
    var ids: [Int64] = [], stamps: [Int64] = [], devices: [String] = [], removed: [Bool] = []
    /// Photo URL, category, dish name, shop name and introduction, each a column.
    var texts: [[String]] = Array(repeating: [], count: 5)
    var storedAt: [Int64] = []

    /// The columns of `changes`, in their order (a removal's texts empty, its time 0: the
    /// statement stores `NULL` for them).
    package init(_ changes: [FavoriteChange]) {
        for change in changes {
            ids.append(Int64(change.id))
            stamps.append(change.stamp.time.rawValue)
            devices.append(change.stamp.device.description)
            switch change.state {
            case .stored(let object):
                removed.append(false)
                for (index, text) in [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction].enumerated() {
                    texts[index].append(text)
                }
                storedAt.append(object.storedAtMilliseconds)
            case .removed:
                removed.append(true)
                for index in texts.indices { texts[index].append("") }
                storedAt.append(0)
            }
        }
    }

    /// The `INSERT`'s head: the table, aliased `f` for ``rule``.
    static let insert = """
        INSERT INTO user_favorites AS f (user_id, id, stamp, device, seq, removed, photo_url, category, dish_name, shop_name, introduction, stored_at)
        """

    /// The stored fields of the batch's change `c`, `NULL` for a removal.
    static let storedFields = """
        CASE WHEN c.removed THEN NULL ELSE c.photo_url END, CASE WHEN c.removed THEN NULL ELSE c.category END,
        CASE WHEN c.removed THEN NULL ELSE c.dish_name END, CASE WHEN c.removed THEN NULL ELSE c.shop_name END,
        CASE WHEN c.removed THEN NULL ELSE c.introduction END, CASE WHEN c.removed THEN NULL ELSE c.stored_at END
        """

    /// The names of the `unnest`ed columns, `n` the change's place in the batch (from 1).
    static let columns = "AS c (id, stamp, device, removed, photo_url, category, dish_name, shop_name, introduction, stored_at, n)"

    /// The merge rule: a change replaces the held one when ``FavoriteMerge`` says so (stamp,
    /// then device bytes, then on a tie removed before stored and the fields in byte order).
    static let rule = """
        ON CONFLICT (user_id, id) DO UPDATE SET
            stamp = excluded.stamp, device = excluded.device, seq = excluded.seq, removed = excluded.removed,
            photo_url = excluded.photo_url, category = excluded.category, dish_name = excluded.dish_name,
            shop_name = excluded.shop_name, introduction = excluded.introduction, stored_at = excluded.stored_at
        WHERE (excluded.stamp, excluded.device) > (f.stamp, f.device)
           OR ((excluded.stamp, excluded.device) = (f.stamp, f.device) AND NOT excluded.removed
               AND (f.removed OR (excluded.photo_url, excluded.category, excluded.dish_name, excluded.shop_name, excluded.introduction, excluded.stored_at)
                               > (f.photo_url, f.category, f.dish_name, f.shop_name, f.introduction, f.stored_at)))
        """
}
