import ArchiveFront
import Foundation

/// Draws the whole screen from the app's state and the view's state: a pure
/// function into a ``ScreenBuffer``, tested without a terminal.
enum ArchiveScreen {
    static let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// The screen for `state` and `view` at `width` × `height`.
    static func render(state: AppState, view: ViewState, width: Int, height: Int) -> ScreenBuffer {
        var buffer = ScreenBuffer(width: width, height: height)
        guard width > 0, height > 0 else { return buffer }
        let layout = Layout(width: width, height: height)
        drawTitle(&buffer, view: view)
        drawSync(&buffer, state: state, view: view)
        switch view.mode {
        case .archive: drawArchive(&buffer, state: state.archiveState, view: view, layout: layout)
        case .favorites: drawFavorites(&buffer, state: state.favoritesState, view: view, layout: layout)
        }
        drawHelpBar(&buffer, view: view, layout: layout)
        if state.onboardingState.showOnboarding {
            drawOnboarding(&buffer)
        } else if view.showHelp {
            drawHelp(&buffer)
        }
        return buffer
    }

    // MARK: - Chrome

    private static func drawTitle(_ buffer: inout ScreenBuffer, view: ViewState) {
        buffer.fill(y: Layout.titleRow, style: .reverse)
        var x = buffer.write(" FavoriteArchive ", x: 0, y: Layout.titleRow, style: Style(bold: true, reverse: true))
        for (mode, label) in [(ViewState.Mode.archive, " Archive "), (.favorites, " Favorites ")] {
            let style = view.mode == mode ? Style(bold: true, reverse: true, underline: true) : .reverse
            x = buffer.write(label, x: x + 1, y: Layout.titleRow, style: style)
        }
    }

    /// Sync, at the title bar's right end: under way, failed, or when it last finished and
    /// the changes waiting; nothing for a database that never synced and has no server.
    private static func drawSync(_ buffer: inout ScreenBuffer, state: AppState, view: ViewState) {
        let sync = state.syncState
        let text: String
        if let notice = view.notice {
            text = notice
        } else if sync.isSyncing {
            text = "⇅ syncing…"
        } else if let message = sync.errorMessage {
            text = "⇅ sync failed (^S: again): \(message)"  // the buffer makes it terminal-safe
        } else if let status = sync.status, status.lastSync != nil || KeyHandler.syncServer(in: state) != nil {
            let when = status.lastSync.map { "synced \(clockTime($0))" } ?? "not synced yet"
            text = "⇅ \(when) · \(grouped(status.waiting)) waiting"
        } else {
            return
        }
        let shown = DisplayWidth.truncate(text, to: max(0, buffer.width / 2 - 1))
        let x = buffer.width - DisplayWidth.of(shown) - 1
        guard x > 30 else { return }
        let style = sync.errorMessage != nil && view.notice == nil && !sync.isSyncing ? Style(bold: true, reverse: true) : .reverse
        buffer.write(shown, x: x, y: Layout.titleRow, style: style)
    }

    /// `date`'s hour and minute in the local time zone ("09:05").
    static func clockTime(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        let pad = { (number: Int) in number < 10 ? "0\(number)" : "\(number)" }
        return pad(parts.hour ?? 0) + ":" + pad(parts.minute ?? 0)
    }

    private static func drawHelpBar(_ buffer: inout ScreenBuffer, view: ViewState, layout: Layout) {
        let text = switch view.mode {
        case .archive: " ?:help q:quit Tab:focus Space:♥ Esc:clear ^T:favorites"
        case .favorites: view.isEditingFavoritesFilter
            ? " type:filter Enter:keep Esc:clear ↑↓:move"
            : " ?:help q:quit ↑↓:move /:filter d:remove r:reload Esc:back"
        }
        buffer.fill(y: layout.helpRow, style: .reverse)
        buffer.write(DisplayWidth.truncate(text, to: buffer.width), x: 0, y: layout.helpRow, style: .reverse)
    }

    // MARK: - Archive view

    private static func drawArchive(_ buffer: inout ScreenBuffer, state: ArchiveState, view: ViewState, layout: Layout) {
        let width = buffer.width
        // Search field.
        let label = "Search › "
        var x = buffer.write(label, x: 1, y: Layout.searchRow, style: view.focus == .search ? .bold : .dim)
        let fieldWidth = max(1, width - x - 1)
        let shown = String(DisplayWidth.suffix(of: view.query, fitting: max(0, fieldWidth - 1)))
        x = buffer.write(shown, x: x, y: Layout.searchRow, style: view.focus == .search ? .focus : .plain, limit: width - 1)
        if view.focus == .search { buffer.write("▏", x: x, y: Layout.searchRow, style: .bold, limit: width) }

        drawChips(&buffer, state: state, view: view)
        drawStatus(&buffer, state: state, view: view)

        let top = Layout.listTop
        let bottom = layout.helpRow
        if state.isError {
            drawMessage(&buffer, lines: ["The search failed:", state.errorMessage ?? "unknown error", "", "r: retry (conditions kept)"], top: top, bottom: bottom, style: .error)
            return
        }
        let rows = state.archiveCellViewObjects
        if rows.isEmpty {
            if state.hasLoaded, !state.isLoading, state.source.isOffline {
                drawMessage(&buffer, lines: ["None of your favorites matches these conditions.", "r retries the catalog; Esc clears the conditions."], top: top, bottom: bottom, style: .dim)
            } else if state.hasLoaded, !state.isLoading {
                drawMessage(&buffer, lines: ["No dish matches these conditions.", "Esc clears them."], top: top, bottom: bottom, style: .dim)
            }
            return
        }
        let visible = layout.visibleResults
        let scroll = Layout.scroll(view.resultScroll, keeping: min(view.resultCursor, rows.count - 1), visible: visible, count: rows.count)
        for (offset, row) in rows.dropFirst(scroll).prefix(visible).enumerated() {
            let index = scroll + offset
            let y = top + offset * Layout.linesPerResult
            let selected = view.focus == .results && index == view.resultCursor
            drawResult(&buffer, row: row, y: y, state: state, selected: selected)
        }
    }

    private static func drawChips(_ buffer: inout ScreenBuffer, state: ArchiveState, view: ViewState) {
        guard !view.categories.isEmpty else {
            buffer.write("(no categories)", x: 1, y: Layout.chipsRow, style: .dim)
            return
        }
        let labels = view.categories.map { " \($0) " }
        // Scroll the chips so that the cursor's chip is visible.
        var first = 0
        while first < view.chipCursor,
            DisplayWidth.of(labels[first...view.chipCursor].joined(separator: " ")) > buffer.width - 2
        {
            first += 1
        }
        var x = 1
        if first > 0 { x = buffer.write("‹", x: 0, y: Layout.chipsRow, style: .dim) }
        for index in first..<labels.count {
            let category = view.categories[index]
            var style: Style = state.selectedCategory == category ? Style(bold: true, reverse: true) : .plain
            if view.focus == .categories, index == view.chipCursor { style = style.merged(with: Style(bold: true, underline: true)) }
            let next = buffer.write(labels[index], x: x, y: Layout.chipsRow, style: style, limit: buffer.width)
            if next >= buffer.width { break }
            x = next + 1
        }
    }

    private static func drawStatus(_ buffer: inout ScreenBuffer, state: ArchiveState, view: ViewState) {
        let y = Layout.statusRow
        var x = 1
        if state.isLoading {
            x = buffer.write("\(spinner[view.spinnerFrame % spinner.count]) searching…", x: x, y: y, style: .bold)
        } else if state.hasLoaded, !state.isError, case .favorites(let reason, _) = state.source {
            let banner = "offline — showing your favorites: \(reason) (r: retry)"  // the buffer makes it terminal-safe
            x = buffer.write(DisplayWidth.truncate(banner, to: buffer.width - 2), x: x, y: y, style: .error)
        } else if state.hasLoaded, !state.isError {
            let stored = state.archiveCellViewObjects.filter(\.isStored).count
            var text = "\(state.archiveCellViewObjects.count) dishes, \(stored) ♥"
            if !state.inputText.isEmpty { text += " · “\(state.inputText)”" }
            if !state.selectedCategory.isEmpty { text += " · \(state.selectedCategory)" }
            x = buffer.write(DisplayWidth.truncate(text, to: buffer.width - 2), x: x, y: y, style: .dim)
        }
        if let message = state.storageErrorMessage {
            buffer.write(DisplayWidth.truncate("⚠ \(message)", to: max(0, buffer.width - x - 3)), x: x + 2, y: y, style: .error)
        }
    }

    private static func drawResult(_ buffer: inout ScreenBuffer, row: ArchiveCellViewObject, y: Int, state: ArchiveState, selected: Bool) {
        let width = buffer.width
        let base: Style = selected ? .reverse : .plain
        if selected {
            buffer.fill(y: y, style: base)
            buffer.fill(y: y + 1, style: base)
        }
        let pending = state.pendingStorageIDs.contains(row.id)
        let heart = row.isStored ? "♥" : "♡"
        let heartStyle = pending ? base.merged(with: .dim) : (row.isStored ? base.merged(with: .heart) : base)
        var x = buffer.write(heart, x: 1, y: y, style: heartStyle)
        x += 1
        let keyword = state.inputText
        x = writeHighlighted(&buffer, row.dishName, keyword: keyword, x: x, y: y, base: base.merged(with: .bold), limit: width - 1)
        let categoryStyle = row.category == state.selectedCategory ? base.merged(with: .highlight) : base.merged(with: .dim)
        if x + 2 < width - 1 {
            x = buffer.write(row.category, x: x + 2, y: y, style: categoryStyle, limit: width - 1)
        }
        if x + 3 < width - 1 {
            x = buffer.write(" · ", x: x, y: y, style: base.merged(with: .dim), limit: width - 1)
            writeHighlighted(&buffer, row.shopName, keyword: keyword, x: x, y: y, base: base, limit: width - 1)
        }
        writeHighlighted(&buffer, row.introduction, keyword: keyword, x: 3, y: y + 1, base: base.merged(with: .dim), limit: width - 1)
    }

    /// Writes `text` with the parts `keyword` matched highlighted (the search's own
    /// match ranges, ``HighlightedText``), cut with "…" to the columns before `limit`.
    @discardableResult
    static func writeHighlighted(_ buffer: inout ScreenBuffer, _ text: String, keyword: String, x: Int, y: Int, base: Style, limit: Int) -> Int {
        let segments = HighlightedText(text, keyword: SearchKeyword(keyword)).segments
        let whole = segments.map(\.text).joined()
        let shown = DisplayWidth.truncate(whole, to: limit - x)
        let isCut = shown != whole
        var left = shown.count - (isCut ? 1 : 0)
        var x = x
        for segment in segments where left > 0 {
            let piece = segment.text.prefix(left)
            x = buffer.write(piece, x: x, y: y, style: segment.isMatch ? base.merged(with: .highlight) : base, limit: limit)
            left -= piece.count
        }
        if isCut { x = buffer.write("…", x: x, y: y, style: base, limit: limit) }
        return x
    }

    // MARK: - Favorites view

    private static func drawFavorites(_ buffer: inout ScreenBuffer, state: FavoritesState, view: ViewState, layout: Layout) {
        let width = buffer.width
        let isFiltered = view.isEditingFavoritesFilter || !view.favoritesFilter.isEmpty || !state.query.isEmpty
        let total = state.totalCount.map(grouped) ?? "many"
        var status = isFiltered
            ? "/\(view.favoritesFilter)\(view.isEditingFavoritesFilter ? "▏" : "") — \(total) matching, newest first"
            : "\(total) favorites, newest first"
        if state.favorites.count < state.totalCount ?? Int.max { status += " (\(grouped(state.favorites.count)) loaded)" }
        if state.isLoading { status = "\(spinner[view.spinnerFrame % spinner.count]) loading… " + status }
        buffer.write(DisplayWidth.truncate(status, to: width - 2), x: 1, y: 1, style: .dim)
        if let message = state.errorMessage {
            drawMessage(&buffer, lines: [message, "Press r to reload."], top: 2, bottom: layout.helpRow, style: .error)
            return
        }
        if state.favorites.isEmpty {
            if state.hasLoaded, !state.query.isEmpty {
                drawMessage(&buffer, lines: ["No favorites match “\(state.query.keyword.text)”.", "Esc clears the filter."], top: 2, bottom: layout.helpRow, style: .dim)
            } else if state.hasLoaded {
                drawMessage(&buffer, lines: ["No favorites yet.", "Heart a dish in the Archive view (^T)."], top: 2, bottom: layout.helpRow, style: .dim)
            }
            return
        }
        let visible = layout.visibleFavorites
        let scroll = Layout.scroll(view.favoritesScroll, keeping: min(view.favoritesCursor, state.favorites.count - 1), visible: visible, count: state.favorites.count)
        for (offset, favorite) in state.favorites.dropFirst(scroll).prefix(visible).enumerated() {
            let y = 2 + offset
            let selected = scroll + offset == view.favoritesCursor
            let base: Style = selected ? .reverse : .plain
            if selected { buffer.fill(y: y, style: base) }
            var x = buffer.write("♥", x: 1, y: y, style: base.merged(with: .heart))
            x = buffer.write(DisplayWidth.truncate(favorite.dishName, to: max(1, width / 2 - 3)), x: x + 1, y: y, style: base.merged(with: .bold), limit: width - 1)
            let detail = "\(favorite.category) · \(favorite.shopName)"
            x = buffer.write(DisplayWidth.truncate(detail, to: max(1, width - x - 3)), x: x + 2, y: y, style: base.merged(with: .dim), limit: width - 1)
        }
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number.magnitude))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return number < 0 ? "-" + text : text
    }

    // MARK: - Messages and overlays

    private static func drawMessage(_ buffer: inout ScreenBuffer, lines: [String], top: Int, bottom: Int, style: Style) {
        var y = top + 1
        for (index, line) in lines.enumerated() {
            for piece in DisplayWidth.wrap(line, to: max(1, buffer.width - 4)) where y < bottom {
                buffer.write(piece, x: 2, y: y, style: index == 0 ? style : .plain)
                y += 1
            }
        }
    }

    private static func drawBox(_ buffer: inout ScreenBuffer, title: String, width: Int? = nil, lines text: [String]) {
        let wanted = width ?? (max(DisplayWidth.of(title) + 2, text.map { DisplayWidth.of($0) }.max() ?? 0) + 2)
        let innerWidth = min(buffer.width - 4, wanted)
        guard innerWidth > 2, buffer.height >= 3 else { return }
        let lines = text.flatMap { DisplayWidth.wrap($0, to: innerWidth - 2) }
        let height = min(buffer.height, lines.count + 2)
        let left = (buffer.width - innerWidth - 2) / 2
        let top = max(0, (buffer.height - height) / 2)
        // Dim everything behind the box.
        for y in 0..<buffer.height { buffer.restyle(y: y, from: 0, to: buffer.width, with: .dim) }
        let border = Style(bold: true)
        buffer.write("┌" + String(repeating: "─", count: innerWidth) + "┐", x: left, y: top, style: border)
        buffer.write(DisplayWidth.truncate(" \(title) ", to: innerWidth), x: left + 2, y: top, style: Style(bold: true, reverse: true))
        for row in 1..<(height - 1) {
            buffer.write("│", x: left, y: top + row, style: border)
            buffer.fill(y: top + row, from: left + 1, to: left + 1 + innerWidth, style: .plain)
            if lines.indices.contains(row - 1) {
                buffer.write(DisplayWidth.truncate(lines[row - 1], to: innerWidth - 2), x: left + 2, y: top + row, style: .plain, limit: left + 1 + innerWidth)
            }
            buffer.write("│", x: left + innerWidth + 1, y: top + row, style: border)
        }
        buffer.write("└" + String(repeating: "─", count: innerWidth) + "┘", x: left, y: top + height - 1, style: border)
    }

    private static func drawOnboarding(_ buffer: inout ScreenBuffer) {
        drawBox(&buffer, title: "Welcome to FavoriteArchive", width: 44, lines: [
            "Search dishes by keyword and category, and heart (♥) the ones you love: they are kept in your archive database.",
            "",
            "Press any key to start.",
        ])
    }

    private static func drawHelp(_ buffer: inout ScreenBuffer) {
        drawBox(&buffer, title: "Keys", lines: [
            "type     search, after a pause",
            "Enter    search now; ♥ on a row",
            "Space    toggle ♥ on the row",
            "Tab ←→   field, categories, rows",
            "Enter    select/clear a category",
            "Esc      clear every condition",
            "↑↓ PgUp  move in the list",
            "r        retry a failed search",
            "^T F2    Archive / Favorites",
            "^S F5    sync with the server",
            "d        remove a favorite",
            "/        filter the favorites",
            "q ^C     quit",
        ])
    }
}
