import ArchiveServerStorage
import ArchiveSyncModel
import ArchiveServer
import ArchiveStorage
import Testing

/// The Favorites screen's reads on both backends: keyset pages newest first, a search that
/// looks through a bounded window of favorites a page and goes on after it, and what the
/// text to find may hold (LIKE's own wildcards are text).
@Suite(.timeLimit(.minutes(5)))
struct FavoritesPageTests {
    @Test("a search looks through a window of favorites a page, says when it stopped there, and every match comes once, newest first", arguments: ServiceBackend.allCases)
    func searchWindows(backend: ServiceBackend) async throws {
        try await backend.withBackend(now: 1_800_000_000_000) { service, devices, _ in
            let device = Changes.device(1)
            let user = try await devices.user(for: device)
            // 120 favorites; those with an even ID hold "Even" in their introduction.
            let changes = (1...120).map { Changes.stored($0, at: 1_700_000_000_000 + Int64($0), by: device, text: $0 % 2 == 0 ? " Even" : "") }
            _ = try await service.push(changes, from: device, through: 1, seen: 0, for: user)
            var found: [Int] = [], pages: [FavoritesPage] = [], after: FavoritesPosition?
            repeat {
                let page = try await service.favorites(of: user, matching: "eVEN", after: after, limit: 10, window: 15)
                pages.append(page)
                found += page.favorites.map(\.id)
                after = page.next
            } while after != nil && pages.count < 50
            #expect(found == Array(stride(from: 120, through: 2, by: -2)), "each match once, newest first, ASCII case ignored")
            // A window of 15 favorites holds 8 or 7 matches, fewer than a page: each page says it
            // stopped at its window, and the next goes on after it.
            #expect(pages.map(\.favorites.count).prefix(2) == [8, 7])
            #expect(pages.prefix(2).allSatisfy { $0.partial })
            #expect(pages[0].next == FavoritesPosition(storedAt: 1_700_000_000_000 + 106, id: 106))
            // A window holding more than a page of matches ends at the page, not partial.
            let full = try await service.favorites(of: user, matching: "even", after: nil, limit: 10, window: 30)
            #expect(full.favorites.count == 10 && !full.partial && full.next == FavoritesPosition(storedAt: 1_700_000_000_000 + 102, id: 102))
            // No search: pages of the limit, never partial.
            let plain = try await service.favorites(of: user, matching: "", after: nil, limit: 50, window: 30)
            #expect(plain.favorites.count == 50 && !plain.partial && plain.next == FavoritesPosition(storedAt: 1_700_000_000_000 + 71, id: 71))
            // LIKE's wildcards and its escape are text to find, not patterns.
            for text in ["%", "_", "\\", "%Even"] {
                let page = try await service.favorites(of: user, matching: text, after: nil, limit: 200, window: 1_000)
                #expect(page.favorites.isEmpty, "\(text.debugDescription) matched \(page.favorites.count)")
            }
            let held = try await service.held([1, 2, 999], of: user)
            #expect(Set(held.changes.keys) == [1, 2] && held.position == 120)
        }
    }
}
